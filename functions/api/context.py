"""Per-request context shared by the routers: the authenticated actor and the Idempotency-Key."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from controlplane.core.auth import Actor

IDEMPOTENCY_HEADER = "idempotency-key"


def actor(router: Router) -> Actor:
    return router.context["actor"]  # type: ignore[no-any-return]


def idempotency_key(router: Router) -> str | None:
    headers = router.current_event.headers or {}
    for name, value in headers.items():
        if name.lower() == IDEMPOTENCY_HEADER:
            return value
    return None
