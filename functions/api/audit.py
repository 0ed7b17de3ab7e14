"""One audit record per mutating request: who, what, target, operation id, request id and outcome.

Written after the response is final (including refusals), so every outcome is recorded.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from api.auth import actor_of
from controlplane import wiring
from controlplane.models.audit import AuditEntry
from controlplane.models.errors import DomainError

MUTATING_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
_CLUSTER_PATH = re.compile(r"^(?:/iam)?/clusters/([a-z][a-z0-9-]{2,20})(?:/|$)")


def _json(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _target(event: APIGatewayProxyEvent, request: dict[str, Any], response: dict[str, Any]) -> str:
    match = _CLUSTER_PATH.match(event.path)
    operation = response.get("operation")
    candidates = [
        match.group(1) if match and match.group(1) != "eks" else None,
        request.get("clusterTag"),
        response.get("target"),
        operation.get("target") if isinstance(operation, dict) else None,
    ]
    return next((c for c in candidates if isinstance(c, str) and c), event.path)


def record(raw_event: dict[str, Any], result: dict[str, Any]) -> None:
    event = APIGatewayProxyEvent(raw_event)
    if event.http_method not in MUTATING_METHODS:
        return
    try:
        actor = actor_of(event)
        # The authenticated caller; the user the MCP server acts for only as verified by api.auth.
        principal, on_behalf_of = (actor.via, actor.principal) if actor.via else (actor.principal, None)
        role = actor.role.name.lower()
    except DomainError:
        principal, on_behalf_of, role = "unauthenticated", None, "none"
    response = _json(result.get("body"))
    operation_id = response.get("operationId")
    wiring.audit_log().record(
        AuditEntry(
            target=_target(event, _json(event.body), response),
            at=datetime.now(UTC),
            actor=principal,
            onBehalfOf=on_behalf_of,
            role=role,
            action=f"{event.http_method} {event.path}",
            operationId=operation_id if isinstance(operation_id, str) else None,
            requestId=event.request_context.request_id or "",
            outcome=str(result.get("statusCode")),
        )
    )
