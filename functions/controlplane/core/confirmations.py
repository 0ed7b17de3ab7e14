"""Plan-then-confirm for destructive actions: single-use tokens bound to caller, action, arguments, the state the
plan was made against, and a TTL.

A token is consumed only by the request it was issued for, and given back when that request then fails before it
changed anything (the cluster was busy, say): a failed or foreign attempt never burns the owner's token.

A route that always needs a token answers a request without one with the plan (200). A route that needs one only
for some values (scaling a model server to zero, a policy that replaces nodes) answers 200 when it has acted, so it
refuses such a request instead (`confirmation_asked`: 400 carrying the plan and its token): a caller that does not
know the value needs a confirmation never mistakes the plan for the change.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta

from pydantic import BaseModel

from controlplane.core.auth import Actor
from controlplane.core.ports.persistence import Clock, Confirmation, ConfirmationStore
from controlplane.models.clusters import Plan
from controlplane.models.errors import ConfirmationRequiredError

CONFIRMATION_TTL = timedelta(minutes=10)


def fingerprint(planned: Sequence[BaseModel]) -> str:
    """A digest of what a plan says the action would change: a token issued for it confirms exactly that."""
    payload = json.dumps([item.model_dump(mode="json") for item in planned], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def confirmation_asked(plan: Plan) -> ConfirmationRequiredError:
    """The refusal of a request sent without the token its values need: the plan, with its token, as details."""
    return ConfirmationRequiredError(
        f"{plan.message} The plan and its confirmationToken are in details.",
        plan.model_dump(mode="json", exclude_none=True),
    )


class Confirmations:
    def __init__(self, store: ConfirmationStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def issue(self, actor: Actor, action: str, target: str, state: str = "") -> tuple[str, datetime]:
        """A fresh token for exactly this caller, action and target (which encodes the arguments), bound to
        `state` (the `fingerprint` of the plan, where what the action changes can change)."""
        token = secrets.token_urlsafe(24)
        expires_at = self._clock.now() + CONFIRMATION_TTL
        self._store.put(
            Confirmation(
                token=token,
                principal=actor.principal,
                action=action,
                target=target,
                fingerprint=state,
                expires_at=expires_at,
            )
        )
        return token, expires_at

    @contextmanager
    def redeeming(
        self, token: str, actor: Actor, action: str, target: str, how_to_replan: str, state: str = ""
    ) -> Iterator[None]:
        """Consume the token for the block it guards; refuse unless it was issued to this caller for this action,
        target and state, unexpired. If the block raises, the token is given back (nothing was done)."""
        taken = self._store.take(token, actor.principal, action, target, state, self._clock.now()) if token else None
        if taken is None:
            raise ConfirmationRequiredError(
                "The confirmation token is missing, expired, already used, issued for another request, or planned "
                f"against a state that has changed since. {how_to_replan} to get a fresh plan and token.",
            )
        try:
            yield
        except BaseException:
            self._store.put(taken)
            raise
