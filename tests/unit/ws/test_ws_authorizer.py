"""The WebSocket `$connect` authorizer: the console's Cognito ID token (query parameter `token`) of the user pool
and app client, with a role from the user's groups; anything else is refused and the token is never logged."""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from controlplane.settings import settings
from ws import authorizer

ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_pool"
CLIENT = "console-client"
METHOD_ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/v1/$connect"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(autouse=True)
def pool(monkeypatch) -> Iterator[None]:
    monkeypatch.setenv("IS_COGNITO_ISSUER", ISSUER)
    monkeypatch.setenv("IS_CONSOLE_CLIENT_ID", CLIENT)
    settings.cache_clear()
    keys = SimpleNamespace(get_signing_key_from_jwt=lambda token: SimpleNamespace(key=KEY.public_key()))
    monkeypatch.setattr(authorizer, "_signing_keys", lambda: keys)
    yield
    settings.cache_clear()


def token(key: Any = KEY, **overrides: Any) -> str:
    now = int(time.time())
    claims = {
        "sub": "u-1",
        "cognito:username": "alice",
        "cognito:groups": ["viewer"],
        "iss": ISSUER,
        "aud": CLIENT,
        "token_use": "id",
        "iat": now,
        "exp": now + 300,
        **overrides,
    }
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "k1"})


def authorize(value: str | None) -> dict[str, Any]:
    query = {"token": value} if value is not None else None
    return authorizer.lambda_handler({"queryStringParameters": query, "methodArn": METHOD_ARN}, None)


def test_a_console_id_token_connects_with_the_users_strongest_role() -> None:
    result = authorize(token(**{"cognito:groups": ["viewer", "operator"]}))
    assert result["principalId"] == "alice"
    assert result["policyDocument"]["Statement"] == [
        {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": METHOD_ARN}
    ]
    assert result["context"] == {"principal": "alice", "role": "operator"}


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "not-a-jwt",
        token(key=OTHER_KEY),
        token(aud="another-client"),
        token(iss="https://cognito-idp.us-east-1.amazonaws.com/other"),
        token(token_use="access"),
        token(exp=int(time.time()) - 10),
    ],
    ids=["missing", "empty", "garbage", "foreign-key", "other-client", "other-pool", "access-token", "expired"],
)
def test_anything_but_a_valid_console_id_token_is_refused_with_401(value: str | None) -> None:
    with pytest.raises(authorizer.UnauthorizedError, match=r"^Unauthorized$"):
        authorize(value)


def test_a_user_without_a_role_is_denied() -> None:
    result = authorize(token(**{"cognito:groups": ["nobody"]}))
    assert result["policyDocument"]["Statement"][0]["Effect"] == "Deny"
    assert result["context"] == {}


def test_the_token_is_never_logged(caplog) -> None:
    value = token(aud="another-client")
    with pytest.raises(authorizer.UnauthorizedError):
        authorize(value)
    assert value not in caplog.text
