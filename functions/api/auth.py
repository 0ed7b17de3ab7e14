"""Who is calling: Cognito groups (people) or an IAM principal bound to a role (programs).

API Gateway authenticates (Cognito authorizer or SigV4) before the handler runs; the handler still
refuses an event without an identity (401) and enforces the role of each route (403).
"""

from __future__ import annotations

import re

from aws_lambda_powertools.utilities.data_classes.api_gateway_proxy_event import APIGatewayProxyEvent

from controlplane.core.auth import Actor, Role, strongest_role
from controlplane.models.errors import AuthenticationRequiredError, ForbiddenError
from controlplane.settings import settings

_ASSUMED_ROLE = re.compile(r"^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role/([^/]+)/.+$")


def _role_arn(principal_arn: str) -> str:
    """`arn:aws:sts::1:assumed-role/Name/session` → `arn:aws:iam::1:role/Name`."""
    match = _ASSUMED_ROLE.match(principal_arn)
    return f"arn:{match[1]}:iam::{match[2]}:role/{match[3]}" if match else principal_arn


def _groups(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(item) for item in value]
    return [part for part in re.split(r"[\s,\[\]]+", str(value or "")) if part]


def actor_of(event: APIGatewayProxyEvent) -> Actor:
    context = event.request_context
    request_id = context.request_id or ""
    claims = (context.authorizer.claims if context.authorizer else None) or {}
    if claims:
        principal = str(claims.get("cognito:username") or claims.get("username") or claims.get("sub") or "")
        role = strongest_role(_groups(claims.get("cognito:groups")))
    elif context.identity.user_arn:
        principal = context.identity.user_arn
        name = settings().iam_role_bindings.get(_role_arn(principal))
        role = Role.parse(name) if name else None
    else:
        raise AuthenticationRequiredError("Sign in (Cognito) or sign the request with SigV4 to call this API.")
    if not principal:
        raise AuthenticationRequiredError("The caller's identity could not be read from the request.")
    if role is None:
        raise ForbiddenError(f"{principal} has no InstantStart role (viewer, operator or admin).")
    return Actor(principal=principal, role=role, request_id=request_id)
