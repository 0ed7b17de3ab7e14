"""What the routers share: the authorized actor, the Idempotency-Key, and the plan-or-start shape.

Roles are not checked here: `api.authorization` checks every route's before the route runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from api.idempotency import run_once
from api.routers.responses import accepted, json_response, recorded
from controlplane.core.auth import Actor
from controlplane.models.common import View
from controlplane.models.operations import Operation

IDEMPOTENCY_HEADER = "idempotency-key"


def actor(router: Router) -> Actor:
    return router.context["actor"]  # type: ignore[no-any-return]


def idempotency_key(router: Router) -> str | None:
    headers = router.current_event.headers or {}
    for name, value in headers.items():
        if name.lower() == IDEMPOTENCY_HEADER:
            return value
    return None


def plan_or_start(
    router: Router,
    *,
    dry_run: bool,
    scope: str,
    body: Any,
    plan: Callable[[Actor], View],
    start: Callable[[Actor], Operation],
) -> Response[str]:
    """The shape of every mutating route: return the plan (200), or start the work once per Idempotency-Key (202
    with the operation)."""
    caller = actor(router)
    if dry_run:
        return json_response(200, plan(caller))
    result = run_once(idempotency_key(router), f"{caller.principal}#{scope}", body, lambda: accepted(start(caller)))
    return recorded(result)
