"""One audit record per mutating request: who, what, target, operation id, request id and outcome.

Written after the response is final (including refusals), so every outcome is recorded. What the request
names is recorded only as text the table can hold: a target is a valid cluster tag or the (shortened) path,
and every string from the request is made UTF-8 safe, so a refusal of bad input is audited like any other.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from api import body
from api.auth import actor_of
from controlplane import wiring
from controlplane.models.audit import AuditEntry
from controlplane.models.common import CLUSTER_TAG_PATTERN
from controlplane.models.errors import DomainError

MUTATING_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
_CLUSTER_PATH = re.compile(r"^(?:/iam)?/clusters/([a-z][a-z0-9-]{2,20})(?:/|$)")
_CLUSTER_TAG = re.compile(CLUSTER_TAG_PATTERN)
MAX_TEXT = 512


def _object(read: Callable[[], str | None]) -> dict[str, Any]:
    """The JSON object of the body `read` returns; {} when there is none or it cannot be read."""
    try:
        text = read()
        value = body.loads(text) if text else {}
    except (ValueError, DomainError):
        return {}
    return value if isinstance(value, dict) else {}


def _text(value: str | None) -> str | None:
    """`value` as text the audit table can store: UTF-8 encodable and at most MAX_TEXT characters."""
    if value is None:
        return None
    return value.encode("utf-8", "backslashreplace").decode("utf-8")[:MAX_TEXT]


def _target(event: APIGatewayProxyEvent, request: dict[str, Any], response: dict[str, Any]) -> str:
    match = _CLUSTER_PATH.match(event.path)
    operation = response.get("operation")
    candidates = [
        match.group(1) if match and match.group(1) != "eks" else None,
        request.get("clusterTag"),
        response.get("target"),
        operation.get("target") if isinstance(operation, dict) else None,
    ]
    tag = next((c for c in candidates if isinstance(c, str) and _CLUSTER_TAG.fullmatch(c)), None)
    return tag or _text(event.path) or "/"


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
    response = _object(lambda: result.get("body"))
    operation_id = response.get("operationId")
    wiring.audit_log().record(
        AuditEntry(
            target=_target(event, _object(lambda: event.decoded_body), response),
            at=datetime.now(UTC),
            actor=_text(principal) or "",
            onBehalfOf=_text(on_behalf_of),
            role=role,
            action=_text(f"{event.http_method} {event.path}") or "",
            operationId=_text(operation_id) if isinstance(operation_id, str) else None,
            requestId=event.request_context.request_id or "",
            outcome=str(result.get("statusCode")),
        )
    )
