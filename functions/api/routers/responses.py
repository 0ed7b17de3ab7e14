"""Response helpers shared by the routers."""

from __future__ import annotations

import json
from types import UnionType
from typing import Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse

from controlplane.models.clusters import Accepted
from controlplane.models.common import View
from controlplane.models.operations import Operation, OperationView


def json_response(status: int, body: View | dict[str, Any]) -> Response[str]:
    payload = body.model_dump_json(exclude_none=True) if isinstance(body, View) else _dumps(body)
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=payload)


def accepted(operation: Operation) -> dict[str, Any]:
    """The recorded result of a request that started a workflow (status and JSON body)."""
    view = OperationView.of(operation)
    body = Accepted(
        operationId=operation.operationId,
        status=operation.status.value,
        stages=[stage.name for stage in operation.stages],
        operation=view,
    )
    return {"status": 202, "body": body.model_dump(mode="json", exclude_none=True)}


def recorded(result: dict[str, Any]) -> Response[str]:
    return json_response(int(result["status"]), result["body"])


def _dumps(body: dict[str, Any]) -> str:
    return json.dumps(body, separators=(",", ":"))


def response_doc(model: type[View] | UnionType, description: str) -> OpenAPIResponse:
    """A documented response; a union (`Plan | TeamView`) when one status answers either."""
    return {"description": description, "content": {"application/json": {"model": model}}}
