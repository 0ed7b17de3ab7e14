"""The sandbox's HTTP front door: what API Gateway, the console's CDN and the EKS endpoints are in AWS.

`/api/*` becomes an API Gateway REST proxy event for the real API handler (the sandbox plays the
Cognito authorizer with fixed tokens, and SigV4 for its MCP server's identity); `/mcp` is the MCP
server acting for the user of each sandbox token; `/k8s/<cluster>` is each cluster's Kubernetes API;
`/sandbox/*` holds the controls (faults).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route

from api.handler import lambda_handler as api_handler
from mcp_server.auth import VerifiedUser
from mcp_server.http import bearer_api, build_asgi_app
from sandbox.k8s.http import asgi_app as kubernetes_app
from sandbox.runtime import ACCOUNT_ID, MCP_CALLER_ARN, MCP_TOKEN, TOKENS, LambdaContext, Sandbox

STAGE = "v1"


def _identity(request: Request) -> tuple[dict[str, str] | None, str | None] | None:
    """(Cognito claims, IAM caller ARN) of the request's bearer token, as API Gateway would verify them."""
    header = request.headers.get("authorization", "")
    token = header.removeprefix("Bearer ").strip()
    if token == MCP_TOKEN:
        return None, MCP_CALLER_ARN
    role = TOKENS.get(token)
    if role is None:
        return None
    return {"sub": token, "cognito:username": token, "cognito:groups": role, "token_use": "id"}, None


async def _api(request: Request) -> Response:
    identity = _identity(request)
    request_id = str(uuid.uuid4())
    if identity is None:
        return JSONResponse(
            {
                "code": "Unauthenticated",
                "requestId": request_id,
                "message": "Missing or unknown bearer token; use sandbox-admin, sandbox-operator or sandbox-viewer.",
            },
            status_code=401,
        )
    claims, caller = identity
    path = "/" + request.path_params["path"]
    body = (await request.body()).decode() or None
    query = dict(request.query_params) or None
    event: dict[str, Any] = {
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
    result = await run_in_threadpool(api_handler, event, LambdaContext("instantstart-api"))
    headers = {key: value for key, value in (result.get("headers") or {}).items()}
    return Response(content=result.get("body") or "", status_code=result["statusCode"], headers=headers)


def _mcp_user(token: str) -> VerifiedUser | None:
    """The sandbox's bearer tokens stand for Cognito users in the group of the same role."""
    role = TOKENS.get(token)
    return VerifiedUser(principal=token, source="cognito", groups=(role,)) if role else None


def build_app(sandbox: Sandbox) -> Starlette:
    async def add_fault(request: Request) -> Response:
        try:
            payload = json.loads(await request.body() or b"{}")
            step = str(payload["step"])
            times = int(payload.get("times", 1))
            after = int(payload.get("after", 0))
            if times < 1 or after < 0:
                raise ValueError("times must be at least 1 and after at least 0")
            key = sandbox.add_fault(step, times, after)
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {"code": "InvalidRequest", "message": f'{error}. Body: {{"step": ..., "times": 1, "after": 0}}'},
                status_code=400,
            )
        return JSONResponse({"step": key, "pending": sandbox.faults.pending()}, status_code=201)

    async def list_faults(request: Request) -> Response:
        return JSONResponse({"pending": sandbox.faults.pending()})

    async def clear_faults(request: Request) -> Response:
        sandbox.faults.clear()
        return Response(status_code=204)

    async def fail_node(request: Request) -> Response:
        """Mark a HyperPod node unhealthy; with NodeRecovery Automatic the sandbox replaces it shortly after."""
        try:
            payload = json.loads(await request.body() or b"{}")
            sandbox.hyperpod.mark_node_unhealthy(str(payload["clusterName"]), str(payload["nodeId"]))
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error}. Body: {{"clusterName": "hp-cluster-<tag>", "nodeId": "i-..."}}',
                },
                status_code=400,
            )
        return Response(status_code=204)

    async def home(request: Request) -> Response:
        return HTMLResponse(LANDING)

    return Starlette(
        routes=[
            Route("/", home),
            Route("/api/{path:path}", _api, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
            Route("/sandbox/faults", add_fault, methods=["POST"]),
            Route("/sandbox/faults", list_faults, methods=["GET"]),
            Route("/sandbox/faults", clear_faults, methods=["DELETE"]),
            Route("/sandbox/node-faults", fail_node, methods=["POST"]),
            Mount("/k8s", app=kubernetes_app(sandbox.emulator)),
            # MCP streamable HTTP at /mcp (+ its RFC 9728 metadata under /.well-known): the server calls the
            # API as itself and each request has the weaker of the user's role and the server's.
            Mount("", app=build_asgi_app(bearer_api("/api", MCP_TOKEN), _mcp_user)),
        ]
    )


LANDING = """<!doctype html><html><head><meta charset="utf-8"><title>InstantStart sandbox</title></head>
<body style="font-family: sans-serif; max-width: 48rem; margin: 2rem auto">
<h1>InstantStart sandbox</h1>
<p>The control plane runs here against a simulated AWS account (moto) and simulated Kubernetes API servers.
State lives in memory and is lost when the process stops.</p>
<ul><li>REST API: <code>/api</code> &mdash; OpenAPI document at <code>/api/openapi.json</code>, Swagger UI at
<code>/api/docs</code> (send <code>Authorization: Bearer sandbox-viewer</code>).</li>
<li>Tokens: <code>sandbox-admin</code>, <code>sandbox-operator</code>, <code>sandbox-viewer</code>.</li>
<li>Faults: <code>POST /sandbox/faults {"step": "Create EKS Cluster", "times": 1}</code>.</li>
<li>Node faults: <code>POST /sandbox/node-faults {"clusterName": "hp-cluster-demo", "nodeId": "i-..."}</code>.</li></ul>
</body></html>"""
