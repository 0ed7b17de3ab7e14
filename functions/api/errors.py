"""The one error body `{code, message, requestId, details}`, and the mapping of errors to it."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import ResponseBuilder
from aws_lambda_powertools.event_handler.exceptions import NotFoundError as RouteNotFound
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from controlplane.models.common import View
from controlplane.models.errors import DomainError
from controlplane.observability import logger


class ErrorBody(View):
    code: str
    message: str
    requestId: str
    details: dict[str, Any] | None = None


def _response(
    event: APIGatewayProxyEvent, status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> Response[str]:
    request_id = event.request_context.request_id or ""
    body = ErrorBody(code=code, message=message, requestId=request_id, details=details or None)
    return Response(
        status_code=status, content_type=content_types.APPLICATION_JSON, body=body.model_dump_json(exclude_none=True)
    )


def error_response(
    app: APIGatewayRestResolver, status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> Response[str]:
    return _response(app.current_event, status, code, message, details)


def refusal(raw_event: dict[str, Any], error: DomainError) -> dict[str, Any]:
    """The Lambda result of a request refused before routing (see `api.body`), in the resolver's own shape."""
    event = APIGatewayProxyEvent(raw_event)
    response = _response(event, error.status, error.code, error.message, error.details)
    return ResponseBuilder[APIGatewayProxyEvent](response).build(event)


def _field(location: tuple[Any, ...]) -> str:
    parts = [str(part) for part in location if part not in ("body", "query", "path")]
    return ".".join(parts) or "body"


def register(app: APIGatewayRestResolver) -> None:
    """Map every error class once for the REST surface."""

    @app.exception_handler(DomainError)
    def domain_error(error: DomainError) -> Response[str]:
        return error_response(app, error.status, error.code, error.message, error.details)

    @app.exception_handler(RequestValidationError)
    def invalid_request(error: RequestValidationError) -> Response[str]:
        problems = [
            {
                "field": _field(tuple(item.get("loc", ()))),
                "problem": item.get("msg", "invalid"),
                "type": item.get("type", ""),
            }
            for item in error.errors()
        ]
        summary = "; ".join(
            f"{p['field']}: {'unknown field, remove it' if p['type'] == 'extra_forbidden' else p['problem']}"
            for p in problems
        )
        return error_response(
            app, 400, "InvalidRequest", f"The request is not valid: {summary}", {"problems": problems}
        )

    @app.exception_handler(json.JSONDecodeError)
    def malformed_json(error: json.JSONDecodeError) -> Response[str]:
        return error_response(app, 400, "InvalidRequest", f"The request body is not valid JSON: {error.msg}.")

    @app.not_found
    def route_not_found(error: RouteNotFound) -> Response[str]:
        return error_response(
            app,
            404,
            "RouteNotFound",
            f"No route {app.current_event.http_method} {app.current_event.path}; see /openapi.json.",
        )

    @app.exception_handler(Exception)
    def unexpected(error: Exception) -> Response[str]:
        logger().exception("unhandled error")
        return error_response(app, 500, "InternalError", "An unexpected error occurred; it has been logged.")
