"""`/api/*`: API Gateway's REST API in front of the real API handler, with the Cognito authorizer (the sandbox's
fixed tokens) and the MCP server's SigV4 identity played by the sandbox."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from api.handler import lambda_handler as api_handler
from sandbox.runtime import ACCOUNT_ID, MCP_CALLER_ARN, TOKENS, LambdaContext, Sandbox

STAGE = "v1"
API_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


class _AnyPath(Convertor[str]):
    """Any path, line breaks included (Starlette's `path` stops at them): API Gateway hands such paths to the
    handler, which refuses them with its own error body."""

    regex = r"[\s\S]*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("anypath", _AnyPath())


def _identity(request: Request, mcp_token: str) -> tuple[dict[str, str] | None, str | None] | None:
    """(Cognito claims, IAM caller ARN) of the request's bearer token, as API Gateway would verify them."""
    header = request.headers.get("authorization", "")
    token = header.removeprefix("Bearer ").strip()
    if secrets.compare_digest(token, mcp_token):
        return None, MCP_CALLER_ARN
    role = TOKENS.get(token)
    if role is None:
        return None
    return {"sub": token, "cognito:username": token, "cognito:groups": role, "token_use": "id"}, None


def _refusal(status: int, code: str, message: str, request_id: str) -> Response:
    return JSONResponse({"code": code, "message": message, "requestId": request_id}, status_code=status)


def _response(result: dict[str, Any]) -> Response:
    """The HTTP response of an API Gateway proxy result: `headers` and `multiValueHeaders` both."""
    response = Response(content=result.get("body") or "", status_code=result["statusCode"])
    headers = [(name, value) for name, value in (result.get("headers") or {}).items()]
    headers += [(name, value) for name, values in (result.get("multiValueHeaders") or {}).items() for value in values]
    for name, value in headers:
        response.headers.append(name, str(value))
    return response


def api_route(sandbox: Sandbox, mcp_token: str) -> Callable[[Request], Awaitable[Response]]:
    async def api(request: Request) -> Response:
        identity = _identity(request, mcp_token)
        request_id = str(uuid.uuid4())
        if identity is None:
            return _refusal(
                401,
                "Unauthenticated",
                "Missing or unknown bearer token; use sandbox-admin, sandbox-operator or sandbox-viewer.",
                request_id,
            )
        try:
            body = (await request.body()).decode() or None
        except UnicodeDecodeError:
            return _refusal(400, "InvalidRequest", "The request body is not UTF-8 text.", request_id)
        claims, caller = identity
        event = _event(request, body, request_id, claims, caller)
        invoke = partial(api_handler, event, LambdaContext("instantstart-api"))
        return _response(await run_in_threadpool(sandbox.api.run, invoke))

    return api


def _event(
    request: Request, body: str | None, request_id: str, claims: dict[str, str] | None, caller: str | None
) -> dict[str, Any]:
    """The API Gateway REST proxy event of `request`."""
    path = "/" + request.path_params["path"]
    query = dict(request.query_params) or None
    return {
        "resource": "/{proxy+}",
        "path": path,
        "httpMethod": request.method,
        "headers": dict(request.headers),
        "multiValueHeaders": {key: request.headers.getlist(key) for key in request.headers},
        "queryStringParameters": query,
        "multiValueQueryStringParameters": {k: request.query_params.getlist(k) for k in request.query_params} or None,
        "pathParameters": {"proxy": path.lstrip("/")},
        "stageVariables": None,
        "requestContext": {
            "accountId": ACCOUNT_ID,
            "apiId": "sandbox",
            "stage": STAGE,
            "requestId": request_id,
            "httpMethod": request.method,
            "path": f"/{STAGE}{path}",
            "resourcePath": "/{proxy+}",
            "identity": {"sourceIp": request.client.host if request.client else "127.0.0.1", "userArn": caller},
            "authorizer": {"claims": claims} if claims else None,
        },
        "body": body,
        "isBase64Encoded": False,
    }
