"""Plan-then-confirm for destructive actions: single-use tokens bound to caller, action, arguments and a TTL."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from controlplane.core.auth import Actor
from controlplane.core.ports.persistence import Clock, Confirmation, ConfirmationStore
from controlplane.models.errors import ConfirmationRequiredError

CONFIRMATION_TTL = timedelta(minutes=10)


class Confirmations:
    def __init__(self, store: ConfirmationStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def issue(self, actor: Actor, action: str, target: str) -> tuple[str, datetime]:
        """A fresh token for exactly this caller, action and target (which encodes the arguments)."""
        token = secrets.token_urlsafe(24)
        expires_at = self._clock.now() + CONFIRMATION_TTL
        self._store.put(
            Confirmation(token=token, principal=actor.principal, action=action, target=target, expires_at=expires_at)
        )
        return token, expires_at

    def redeem(self, token: str, actor: Actor, action: str, target: str, how_to_replan: str) -> None:
        """Consume the token; refuse unless it was issued to this caller for this action and target, unexpired."""
        confirmation = self._store.take(token) if token else None
        if (
            confirmation is None
            or confirmation.principal != actor.principal
            or confirmation.action != action
            or confirmation.target != target
            or confirmation.expires_at < self._clock.now()
        ):
            raise ConfirmationRequiredError(
                "The confirmation token is missing, expired, already used or issued for another request. "
                f"{how_to_replan} to get a fresh plan and token.",
            )
