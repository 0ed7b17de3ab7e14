"""What the routers share: the authorized actor, the Idempotency-Key, and the plan → confirm → run shape.

Roles are not checked here: each route declares its permission (`api.authorization`), checked before it runs.
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


def plan_or_run(
    router: Router,
    *,
    dry_run: bool,
    scope: str,
    body: Any,
    plan: Callable[[Actor], View],
    run: Callable[[Actor], View],
    status: int | Callable[[Any], int] = 200,
) -> Response[str]:
    """The shape of every route that plans before it acts: the plan (200) when `dry_run`, else `run` once per
    Idempotency-Key (`once`). A destructive route passes `dryRun or not confirmationToken`: it answers with the
    plan and its token until the caller confirms with the token."""
    if dry_run:
        return json_response(200, plan(actor(router)))
    return once(router, scope=scope, body=body, run=run, status=status)


def once(
    router: Router,
    *,
    scope: str,
    body: Any,
    run: Callable[[Actor], View],
    status: int | Callable[[Any], int] = 200,
) -> Response[str]:
    """`run` once per Idempotency-Key of the caller and `scope` (`body` is what a repeat must send again): an
    operation it starts answers 202 with the operation, any other result `status` (or `status(result)`)."""
    caller = actor(router)

    def answer() -> dict[str, Any]:
        result = run(caller)
        if isinstance(result, Operation):
            return accepted(result)
        code = status if isinstance(status, int) else status(result)
        return {"status": code, "body": result.model_dump(mode="json", exclude_none=True)}

    return recorded(run_once(idempotency_key(router), f"{caller.principal}#{scope}", body, answer))
