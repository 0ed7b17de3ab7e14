"""Lambda REQUEST authorizer of the WebSocket API's `$connect`: the same people and roles as the REST API.

A browser cannot set headers on a WebSocket, so the console sends the Cognito ID token it sends the REST API as the
`token` query parameter of the connect URL. The token is verified here as API Gateway's Cognito authorizer verifies
it for the REST API (signature against the user pool's keys, issuer, audience = the console's app client,
token_use `id`, expiry) and never logged; the role is the strongest of the user's Cognito groups. The context
(`principal`, `role`) reaches `$connect` (`ws.handler`). A missing or invalid token is refused with 401, a user with
no role with 403.

`jwt` (with `cryptography`) is imported on the first token, not with the module.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from controlplane.core.auth import strongest_role
from controlplane.observability import logger
from controlplane.settings import settings

if TYPE_CHECKING:
    import jwt

TOKEN_PARAMETER = "token"
ALGORITHMS = ["RS256"]


class UnauthorizedError(Exception):
    """API Gateway answers 401 when an authorizer fails with exactly this message."""

    def __init__(self) -> None:
        super().__init__("Unauthorized")


@cache
def _signing_keys() -> jwt.PyJWKClient:
    import jwt

    return jwt.PyJWKClient(f"{settings().cognito_issuer}/.well-known/jwks.json", cache_keys=True)


def verified_claims(token: str) -> dict[str, Any] | None:
    """The claims of a console ID token of the user pool, or None when it is not one."""
    import jwt

    try:
        key = _signing_keys().get_signing_key_from_jwt(token)
        claims: dict[str, Any] = jwt.decode(
            token,
            key.key,
            algorithms=ALGORITHMS,
            audience=settings().console_client_id,
            issuer=settings().cognito_issuer,
            options={"require": ["exp", "iat", "iss", "sub", "aud", "token_use"]},
        )
    except jwt.PyJWTError as error:
        logger().info("refused a WebSocket token", extra={"reason": type(error).__name__})
        return None
    return claims if claims["token_use"] == "id" else None


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    token = (event.get("queryStringParameters") or {}).get(TOKEN_PARAMETER)
    claims = verified_claims(token) if token else None
    if claims is None:
        raise UnauthorizedError()
    principal = str(claims.get("cognito:username") or claims["sub"])
    groups = claims.get("cognito:groups") or []
    role = strongest_role([str(group) for group in groups])
    if role is None:
        return _policy(principal, "Deny", event["methodArn"], {})
    return _policy(principal, "Allow", event["methodArn"], {"principal": principal, "role": role.name.lower()})


def _policy(principal: str, effect: str, resource: str, context: dict[str, str]) -> dict[str, Any]:
    return {
        "principalId": principal,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": resource}],
        },
        "context": context,
    }
