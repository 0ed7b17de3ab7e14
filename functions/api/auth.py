"""Who is calling: Cognito groups (people), an IAM principal bound to a role (programs), or the remote
MCP server acting for a user it has verified.

API Gateway authenticates (Cognito authorizer or SigV4) before the handler runs; the handler still
refuses an event without an identity (401) and enforces the role of each route (403).

The MCP server calls with its own IAM role and names its user in `X-InstantStart-On-Behalf-Of`
(`{"principal", "source": "cognito"|"iam", "groups"}`). Only that role's header is read; the request
then acts for the user with the weaker of the user's own role (Cognito groups, or the IAM binding of
the user's role) and the server's ceiling (setting `mcp_max_role`): a viewer stays a viewer, and no user
gets more through the server than the deployment allows it. Anyone else's header is ignored.
"""

from __future__ import annotations

import re
from typing import Literal

from aws_lambda_powertools.utilities.data_classes.api_gateway_proxy_event import APIGatewayProxyEvent
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controlplane.core.auth import Actor, Role, strongest_role
from controlplane.models.errors import AuthenticationRequiredError, ForbiddenError
from controlplane.settings import settings

ON_BEHALF_OF_HEADER = "x-instantstart-on-behalf-of"
_ASSUMED_ROLE = re.compile(r"^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role/([^/]+)/.+$")
# A role ARN, with or without a path (IAM Identity Center: role/aws-reserved/sso.amazonaws.com/<region>/<name>).
_ROLE = re.compile(r"^arn:(aws[a-z-]*):iam::(\d{12}):role/(?:[\w+=,.@-]+/)*([\w+=,.@-]+)$")


class OnBehalfOf(BaseModel):
    """The user the MCP server verified (OAuth bearer or SigV4) and acts for."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    principal: str = Field(min_length=1, max_length=256)
    source: Literal["cognito", "iam"]
    groups: list[str] = Field(default_factory=list, max_length=100)


def _role_key(arn: str) -> tuple[str, str, str] | None:
    """(partition, account, role name) of a role ARN (any path) or of an assumed-role session ARN, else None.

    A session ARN carries no path, and a role's name is unique in its account whatever its path, so the two are
    matched by partition, account and name."""
    match = _ASSUMED_ROLE.match(arn) or _ROLE.match(arn)
    return (match[1], match[2], match[3]) if match else None


def _groups(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(item) for item in value]
    return [part for part in re.split(r"[\s,\[\]]+", str(value or "")) if part]


def _bound_role(principal_arn: str) -> Role | None:
    key = _role_key(principal_arn)
    if key is None:
        return None
    bound = [role for arn, role in settings().iam_role_bindings.items() if _role_key(arn) == key]
    return Role.parse(bound[0]) if bound else None


def header(event: APIGatewayProxyEvent, name: str) -> str | None:
    for key, value in (event.headers or {}).items():
        if key.lower() == name:
            return value
    return None


def _is_mcp_server(principal_arn: str) -> bool:
    mcp_role = _role_key(settings().mcp_role_arn)
    return mcp_role is not None and _role_key(principal_arn) == mcp_role


def _delegated(event: APIGatewayProxyEvent, server: str, request_id: str) -> Actor:
    """The MCP server acting for the user it names: the user, with the weaker of the two roles."""
    raw = header(event, ON_BEHALF_OF_HEADER)
    if raw is None:
        raise ForbiddenError(f"The MCP server must name the user it acts for in {ON_BEHALF_OF_HEADER}.")
    try:
        user = OnBehalfOf.model_validate_json(raw)
    except ValidationError as error:
        raise ForbiddenError(
            f"{ON_BEHALF_OF_HEADER} is not a user the MCP server verified: {error.errors()[0]['msg']}"
        ) from None
    role = strongest_role(user.groups) if user.source == "cognito" else _bound_role(user.principal)
    if role is None:
        raise ForbiddenError(f"{user.principal} has no InstantStart role (viewer, operator or admin).")
    ceiling = Role.parse(settings().mcp_max_role) or Role.VIEWER
    return Actor(
        principal=user.principal, role=min(role, ceiling), request_id=request_id, via=server, source=user.source
    )


def actor_of(event: APIGatewayProxyEvent) -> Actor:
    context = event.request_context
    request_id = context.request_id or ""
    claims = (context.authorizer.claims if context.authorizer else None) or {}
    source: Literal["cognito", "iam"] = "cognito" if claims else "iam"
    if claims:
        principal = str(claims.get("cognito:username") or claims.get("username") or claims.get("sub") or "")
        role = strongest_role(_groups(claims.get("cognito:groups")))
    elif context.identity.user_arn:
        principal = context.identity.user_arn
        if _is_mcp_server(principal):
            return _delegated(event, principal, request_id)
        role = _bound_role(principal)
    else:
        raise AuthenticationRequiredError("Sign in (Cognito) or sign the request with SigV4 to call this API.")
    if not principal:
        raise AuthenticationRequiredError("The caller's identity could not be read from the request.")
    if role is None:
        raise ForbiddenError(f"{principal} has no InstantStart role (viewer, operator or admin).")
    return Actor(principal=principal, role=role, request_id=request_id, source=source)
