"""Who is calling the MCP server: the verified user, and how a Cognito bearer token is verified.

Belongs here: `VerifiedUser` (with the audit header the API reads from the server's own requests) and
`CognitoTokenVerifier` (signature against the user pool's JWKS, issuer, token_use, expiry, and the
MCP app client as the token's audience). Not here: the 401 challenge (`http`) or API Gateway events
(`lambda_handler`).

`jwt` (with `cryptography`) is imported by the verifier when it first checks a token, not with the module: the
SigV4 route and the sandbox (which import `VerifiedUser` from here) never verify one.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import httpx

if TYPE_CHECKING:
    import jwt

logger = logging.getLogger(__name__)

ALGORITHMS = ["RS256"]
JWKS_REFRESH_SECONDS = 300
JWKS_TIMEOUT = httpx.Timeout(5.0)


@dataclass(frozen=True)
class VerifiedUser:
    """A caller the MCP server has authenticated: a Cognito user (with groups) or an IAM principal.

    The server never passes the caller's credential on; it sends `header()` with its own requests and
    the API gives the request the weaker of this user's role and the server's own (see api.auth).
    """

    principal: str
    source: Literal["cognito", "iam"]
    groups: tuple[str, ...] = ()

    def header(self) -> str:
        """The value of `X-InstantStart-On-Behalf-Of`."""
        return json.dumps(
            {"principal": self.principal, "source": self.source, "groups": list(self.groups)}, separators=(",", ":")
        )


def fetch_jwks(issuer: str) -> dict[str, Any]:
    """The user pool's signing keys, from `<issuer>/.well-known/jwks.json`."""
    response = httpx.get(f"{issuer}/.well-known/jwks.json", timeout=JWKS_TIMEOUT)
    response.raise_for_status()
    keys: dict[str, Any] = response.json()
    return keys


class CognitoTokenVerifier:
    """Accepts access tokens that the user pool `issuer` issued to the app client `client_id` only.

    Cognito access tokens carry their audience as `client_id` (they have no `aud`): a token issued to
    any other app client of the same pool (the console's) is refused. The key set is read on first use
    and again when a token names an unknown key, at most once per JWKS_REFRESH_SECONDS.
    """

    def __init__(
        self,
        issuer: str,
        client_id: str,
        jwks: Callable[[str], dict[str, Any]] = fetch_jwks,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._issuer = issuer.rstrip("/")
        self._client_id = client_id
        self._jwks = jwks
        self._clock = clock
        self._keys: jwt.PyJWKSet | None = None
        self._fetched_at = 0.0

    def __call__(self, token: str) -> VerifiedUser | None:
        import jwt  # on the first token, not at init (see the module docstring)

        try:
            key = self._key(jwt.get_unverified_header(token).get("kid"))
            claims = jwt.decode(
                token,
                key,
                algorithms=ALGORITHMS,
                issuer=self._issuer,
                options={"require": ["exp", "iat", "iss", "sub", "token_use", "client_id"], "verify_aud": False},
            )
        except jwt.PyJWTError as error:
            logger.info("Refused a bearer token: %s", error)
            return None
        if claims["token_use"] != "access":
            logger.info("Refused a bearer token: token_use is %r, not 'access'", claims["token_use"])
            return None
        if claims["client_id"] != self._client_id:
            logger.info("Refused a bearer token issued to another app client (wrong audience)")
            return None
        groups = claims.get("cognito:groups") or []
        return VerifiedUser(
            principal=str(claims.get("username") or claims["sub"]),
            source="cognito",
            groups=tuple(str(group) for group in groups),
        )

    def _key(self, kid: str | None) -> jwt.PyJWK:
        import jwt

        if not kid:
            raise jwt.InvalidTokenError("the token names no signing key (kid)")
        if self._keys is None or (kid not in _kids(self._keys) and self._stale()):
            self._keys = jwt.PyJWKSet.from_dict(self._jwks(self._issuer))
            self._fetched_at = self._clock()
        if kid not in _kids(self._keys):
            raise jwt.InvalidTokenError("the token is not signed by a key of the user pool")
        return self._keys[kid]

    def _stale(self) -> bool:
        return self._clock() - self._fetched_at >= JWKS_REFRESH_SECONDS


def _kids(keys: jwt.PyJWKSet) -> set[str]:
    return {key.key_id for key in keys.keys if key.key_id}
