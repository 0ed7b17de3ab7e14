"""Writes one audit record per mutating request: who, what, target, operation id and request ids."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware

from controlplane import wiring
from controlplane.core.auth import Actor
from controlplane.models.audit import AuditEntry

MUTATING_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def _target(app: APIGatewayRestResolver, body: dict[str, object]) -> str:
    path_parameters = app.current_event.path_parameters or {}
    operation = body.get("operation") if isinstance(body.get("operation"), dict) else {}
    for candidate in (
        path_parameters.get("clusterTag"),
        (app.current_event.json_body or {}).get("clusterTag") if _json_request(app) else None,
        operation.get("target") if isinstance(operation, dict) else None,
    ):
        if isinstance(candidate, str) and candidate:
            return candidate
    return app.current_event.path


def _json_request(app: APIGatewayRestResolver) -> bool:
    try:
        return isinstance(app.current_event.json_body, dict)
    except ValueError:
        return False


def audit_middleware(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[str]:
    response = next_middleware(app)
    event = app.current_event
    actor: Actor | None = app.context.get("actor")
    if event.http_method not in MUTATING_METHODS or actor is None:
        return response
    try:
        body = json.loads(response.body) if isinstance(response.body, str) and response.body else {}
    except ValueError:
        body = {}
    body = body if isinstance(body, dict) else {}
    operation_id = body.get("operationId")
    wiring.audit_log().record(
        AuditEntry(
            target=_target(app, body),
            at=datetime.now(UTC),
            actor=actor.principal,
            role=actor.role.name.lower(),
            action=f"{event.http_method} {event.path}",
            operationId=operation_id if isinstance(operation_id, str) else None,
            requestId=actor.request_id,
            outcome=str(response.status_code),
        )
    )
    return response
