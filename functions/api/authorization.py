"""Who may call what: each route declares the permission it needs where it is declared, and it is checked there.

A router module's `router` is a `Routes`: its decorators take `allow`, the permission the route needs (`READ`,
`operator(...)`, `admin(...)`, or a rule that reads the request, for routes that need more for some requests).
A request is answered in the order a caller can act on: `authenticate` first (every request, documents and
unknown paths too: no identity → 401), then the route's own middlewares: its permission (a weaker role → 403,
whatever the body), the body's media type (`api.body.check`: 415) and the request's validation against the route's
models (400); checks against live state (404, 409) run after them, in the route. The OpenAPI document names the
weakest role that may call each route (`x-required-role`), which the MCP server, the console and the
authorization tests read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIResponseValidationMiddleware

from api import body
from api.auth import actor_of
from controlplane.core.auth import Actor, Role
from controlplane.models.errors import DomainError

REQUIRED_ROLE = "x-required-role"
_VALIDATION = body.BodyValidation()
_RESPONSE_VALIDATION = OpenAPIResponseValidationMiddleware()
DYNAMIC_SEGMENT = re.compile(r"<(\w+)>")  # Powertools' `<clusterTag>`, the document's `{clusterTag}`
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Permission:
    role: Role
    action: str


@dataclass(frozen=True)
class RouteRequest:
    """What a request-dependent permission reads: the JSON body (empty when it cannot be read, so the weakest role
    the route takes is asked before the body is refused). A plan (`dryRun`) needs the role the request itself needs,
    so a plan never promises what the real call would refuse."""

    body: Mapping[str, Any]


Rule = Permission | Callable[[RouteRequest], Permission]

READ = Permission(Role.VIEWER, "read")


def operator(action: str) -> Permission:
    return Permission(Role.OPERATOR, action)


def admin(action: str) -> Permission:
    return Permission(Role.ADMIN, action)


def required(rule: Rule, request: Callable[[], RouteRequest]) -> Permission:
    """The permission a request needs under `rule` (`request` is read only by request-dependent rules)."""
    return rule if isinstance(rule, Permission) else rule(request())


def weakest_role(rule: Rule) -> Role:
    """The weakest role that may call a route under `rule` with some request (what the MCP server's list offers)."""
    return required(rule, lambda: RouteRequest(body={})).role


class Routes(Router):
    """Powertools' Router whose every route says who may call it: `@router.post(rule, allow=admin("..."), ...)`
    takes Powertools' own options besides. `permissions` holds each route's rule by "METHOD /path" as the
    OpenAPI document names it."""

    def __init__(self) -> None:
        super().__init__()
        self.permissions: dict[str, Rule] = {}

    # The verbs take `allow` besides Powertools' keyword options (never positional ones), hence the overrides.
    def get(self, rule: str, *, allow: Rule, **options: Any) -> Callable[[F], F]:  # type: ignore[override]
        return self._declare(rule, "GET", allow, options)

    def post(self, rule: str, *, allow: Rule, **options: Any) -> Callable[[F], F]:  # type: ignore[override]
        return self._declare(rule, "POST", allow, options)

    def put(self, rule: str, *, allow: Rule, **options: Any) -> Callable[[F], F]:  # type: ignore[override]
        return self._declare(rule, "PUT", allow, options)

    def patch(self, rule: str, *, allow: Rule, **options: Any) -> Callable[[F], F]:  # type: ignore[override]
        return self._declare(rule, "PATCH", allow, options)

    def delete(self, rule: str, *, allow: Rule, **options: Any) -> Callable[[F], F]:  # type: ignore[override]
        return self._declare(rule, "DELETE", allow, options)

    def _declare(self, rule: str, method: str, allow: Rule, options: dict[str, Any]) -> Callable[[F], F]:
        path = DYNAMIC_SEGMENT.sub(r"{\1}", rule)
        self.permissions[f"{method} {path}"] = allow
        extensions = {**options.pop("openapi_extensions", {}), REQUIRED_ROLE: weakest_role(allow).name.lower()}
        # Powertools validates a request before any middleware runs; the route validates after authorizing instead.
        middlewares: list[Callable[..., Any]] = [_checking(allow), body.check, _VALIDATION, _RESPONSE_VALIDATION]
        return self.route(
            rule, method, openapi_extensions=extensions, enable_validation=False, middlewares=middlewares, **options
        )


def authenticate(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[str]:
    """Every request: the caller's identity (401 without one), handed to the route as the actor."""
    app.append_context(actor=actor_of(app.current_event))
    return next_middleware(app)


def _checking(rule: Rule) -> Callable[[APIGatewayRestResolver, NextMiddleware], Response[str]]:
    """The route's middleware: the actor needs the permission `rule` gives the request (403 otherwise)."""

    def authorize(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[str]:
        def route_request() -> RouteRequest:
            try:
                parsed = app.current_event.json_body
            except (ValueError, DomainError):
                parsed = None
            return RouteRequest(body=parsed if isinstance(parsed, dict) else {})

        permission = required(rule, route_request)
        caller: Actor = app.context["actor"]
        caller.require(permission.role, permission.action)
        return next_middleware(app)

    return authorize
