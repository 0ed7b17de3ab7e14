"""Lambda entry point of the remote MCP server: API Gateway REST proxy events served by `http`'s app.

Routes (wired in infra.mcp, same function):
  /mcp                                       OAuth bearer from the Cognito pool, verified here
                                             (signature, issuer, token_use, expiry, the MCP app client)
  /mcp-iam                                   API Gateway AWS_IAM (SigV4, e.g. through mcp-proxy-for-aws);
                                             the caller is the IAM principal API Gateway verified
  /.well-known/oauth-protected-resource/mcp  RFC 9728 metadata of /mcp (public)

Each event becomes one ASGI request; the response is the whole JSON body (stateless JSON mode, no
stream). The server calls the API under `IS_API_URL` with its own role (SigV4); one operation_wait
call waits at most LAMBDA_MAX_WAIT_SECONDS so that the answer beats API Gateway's 29 s limit.

Environment: IS_API_URL, IS_COGNITO_ISSUER, IS_MCP_CLIENT_ID, AWS_REGION (set by Lambda).
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Callable
from functools import cache
from typing import Any
from urllib.parse import urlencode

import anyio
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Message

from mcp_server.auth import CognitoTokenVerifier, VerifiedUser
from mcp_server.client import ApiClient
from mcp_server.http import build_asgi_app
from mcp_server.sigv4 import SigV4

# Answer within API Gateway's 29 s integration timeout, leaving room for a cold start.
LAMBDA_MAX_WAIT_SECONDS = 20
BEARER_PATH = "/mcp"
IAM_PATH = "/mcp-iam"
# API Gateway has authenticated the caller and checked the Host; nothing here is served to browsers.
BEHIND_API_GATEWAY = TransportSecuritySettings(enable_dns_rebinding_protection=False)


def build_app(
    api: ApiClient,
    verify_token: Callable[[str], VerifiedUser | None],
    authorization_server: str,
) -> ASGIApp:
    """The MCP app of the Lambda function: the bearer route, the SigV4 route, one API client."""
    return build_asgi_app(
        lambda request, user: api,
        verify_token,
        path=BEARER_PATH,
        signed_endpoints={IAM_PATH: iam_caller},
        authorization_servers=[authorization_server],
        transport_security=BEHIND_API_GATEWAY,
        max_wait_seconds=LAMBDA_MAX_WAIT_SECONDS,
        stream=False,
    )


def iam_caller(request: Request) -> VerifiedUser | None:
    """The IAM principal that API Gateway's AWS_IAM authorization verified for this request."""
    identity = (request.scope["aws.event"].get("requestContext") or {}).get("identity") or {}
    arn = identity.get("userArn")
    return VerifiedUser(principal=arn, source="iam") if arn else None


class LambdaAsgi:
    """Runs API Gateway events through an ASGI app on one event loop kept for the life of the process
    (the API client's connections survive between invocations)."""

    def __init__(self, app: ASGIApp, runner: asyncio.Runner | None = None) -> None:
        self._app = app
        self._runner = runner or asyncio.Runner()

    def __call__(self, event: dict[str, Any]) -> dict[str, Any]:
        return self._runner.run(serve(self._app, event))


async def serve(app: ASGIApp, event: dict[str, Any]) -> dict[str, Any]:
    """One REST proxy event → one ASGI HTTP request → one proxy response."""
    context = event.get("requestContext") or {}
    path = event.get("path") or "/"
    seen_path = context.get("path") or path  # as the client sent it, e.g. /v1/mcp on the default domain
    root_path = seen_path[: -len(path)] if seen_path.endswith(path) else ""
    headers = _headers(event)
    host = next((value for name, value in headers if name == "host"), context.get("domainName") or "localhost")
    body = event.get("body") or ""
    payload = base64.b64decode(body) if event.get("isBase64Encoded") else body.encode()
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": event["httpMethod"],
        "scheme": "https",
        "root_path": root_path,
        "path": root_path + path,
        "raw_path": (root_path + path).encode(),
        "query_string": urlencode(_query(event), doseq=True).encode(),
        "headers": [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers],
        "server": (host, 443),
        "client": ((context.get("identity") or {}).get("sourceIp") or "0.0.0.0", 0),
        "aws.event": event,
    }
    status = 500
    response_headers: dict[str, list[str]] = {}
    chunks: list[bytes] = []
    responded = anyio.Event()
    request_sent = False

    async def receive() -> Message:
        nonlocal request_sent
        if not request_sent:
            request_sent = True
            return {"type": "http.request", "body": payload, "more_body": False}
        await responded.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            for name, value in message.get("headers", []):
                response_headers.setdefault(name.decode("latin-1"), []).append(value.decode("latin-1"))
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                responded.set()

    await app(scope, receive, send)
    content = b"".join(chunks)
    try:
        text, encoded = content.decode(), False
    except UnicodeDecodeError:
        text, encoded = base64.b64encode(content).decode(), True
    return {"statusCode": status, "multiValueHeaders": response_headers, "body": text, "isBase64Encoded": encoded}


def _headers(event: dict[str, Any]) -> list[tuple[str, str]]:
    multi = event.get("multiValueHeaders") or {}
    if multi:
        return [(name.lower(), value) for name, values in multi.items() for value in values or []]
    return [(name.lower(), value) for name, value in (event.get("headers") or {}).items()]


def _query(event: dict[str, Any]) -> list[tuple[str, str]]:
    multi = event.get("multiValueQueryStringParameters") or {}
    if multi:
        return [(name, value) for name, values in multi.items() for value in values or []]
    return list((event.get("queryStringParameters") or {}).items())


@cache
def _runtime() -> LambdaAsgi:
    issuer = os.environ["IS_COGNITO_ISSUER"]
    api = ApiClient(os.environ["IS_API_URL"], SigV4(os.environ["AWS_REGION"]))
    verify = CognitoTokenVerifier(issuer, os.environ["IS_MCP_CLIENT_ID"])
    return LambdaAsgi(build_app(api, verify, issuer))


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _runtime()(event)
