"""The one error body `{code, message, requestId, details}`, and the mapping of errors to it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError as RouteNotFound
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from controlplane.models.common import View
from controlplane.models.errors import DomainError
from controlplane.observability import logger


class ErrorBody(View):
    code: str
    message: str
    requestId: str
    details: dict[str, Any] | None = None


def error_response(
    app: APIGatewayRestResolver,
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[str]:
    request_id = app.current_event.request_context.request_id or ""
    body = ErrorBody(code=code, message=message, requestId=request_id, details=details or None)
    return Response(
        status_code=status,
        content_type=content_types.APPLICATION_JSON,
        body=body.model_dump_json(exclude_none=True),
        headers=headers,
    )


def _field(location: tuple[Any, ...]) -> str:
    parts = [str(part) for part in location if part not in ("body", "query", "path")]
    return ".".join(parts) or "body"


def register(app: APIGatewayRestResolver, allowed_methods: Callable[[str], list[str]]) -> None:
    """Map every error class once for the REST surface; `allowed_methods` names the methods a path takes (a known
    path asked with another method answers 405 with them)."""

    @app.exception_handler(DomainError)
    def domain_error(error: DomainError) -> Response[str]:
        retry = {"Retry-After": str(error.retry_after)} if error.retry_after is not None else None
        return error_response(app, error.status, error.code, error.message, error.details, headers=retry)

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
        method, path = app.current_event.http_method, app.current_event.path
        allowed = allowed_methods(path)
        if allowed and method not in allowed:
            return error_response(
                app,
                405,
                "MethodNotAllowed",
                f"{path} does not take {method}; it takes {', '.join(allowed)} (see /openapi.json).",
                {"allowed": allowed},
                headers={"Allow": ", ".join(allowed)},
            )
        return error_response(app, 404, "RouteNotFound", f"No route {method} {path}; see /openapi.json.")

    @app.exception_handler(Exception)
    def unexpected(error: Exception) -> Response[str]:
        logger().exception("unhandled error")
        return error_response(app, 500, "InternalError", "An unexpected error occurred; it has been logged.")
