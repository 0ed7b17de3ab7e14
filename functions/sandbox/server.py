"""The sandbox's HTTP front door: what API Gateway, the console's CDN and the EKS endpoints are in AWS.

`/api/*` becomes an API Gateway REST proxy event for the real API handler (the sandbox plays the
Cognito authorizer with fixed tokens, and SigV4 for its MCP server's identity) and the handler's
result becomes the HTTP response, every header kept; a body that is not UTF-8 is refused (400) as API
Gateway would. `/mcp` is the MCP server acting for the user of each sandbox token; it calls `/api`
with a token made when the app is built and known only to this process, so no other local caller can
act as the MCP server (and name any user with any role). `/k8s/<cluster>` is each cluster's
Kubernetes API; `/ws` is the WebSocket API (each frame an API Gateway WebSocket event for the real `ws` handler; the
sandbox plays the `$connect` authorizer with the same tokens, passed as the `token` query parameter, and
`sandbox.aws.websocket` delivers the management API's posts to the socket); `/sandbox/*` holds the controls
(faults). Every other GET path is the web console (the built
`frontend/dist`, as CloudFront serves it: assets by name, any other path its `index.html`), with a `config.json`
whose sign-in is a choice of sandbox role.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import secrets
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from api.handler import lambda_handler as api_handler
from mcp_server.auth import VerifiedUser
from mcp_server.http import bearer_api, build_asgi_app
from sandbox import out_of_band
from sandbox.aws.websocket import API_ID
from sandbox.k8s.http import asgi_app as kubernetes_app
from sandbox.runtime import ACCOUNT_ID, MCP_CALLER_ARN, TOKENS, WS_FUNCTION, LambdaContext, Sandbox
from ws.handler import lambda_handler as ws_handler

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


class _ConsolePath(Convertor[str]):
    """A console page: any path but those the API, the MCP server and the sandbox's controls answer."""

    regex = r"(?!api(/|$)|mcp(/|$)|ws(/|$)|\.well-known/|k8s/|sandbox/|assets/).*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("consolepath", _ConsolePath())

# The console's build (`make run` and `make test` build it first).
CONSOLE_DIR = Path(__file__).resolve().parents[2] / "frontend" / "dist"
CONSOLE_CONFIG = {"apiBase": "/api", "auth": {"mode": "sandbox", "roles": ["viewer", "operator", "admin"]}}


def live_console_config() -> dict[str, Any]:
    """The console's `config.json`: live logs over `/ws` when the server speaks WebSocket (uvicorn needs `wsproto`
    or `websockets` for it); without, the console polls the logs route."""
    serves_websockets = any(importlib.util.find_spec(name) for name in ("wsproto", "websockets"))
    return {**CONSOLE_CONFIG, "wsBase": "/ws"} if serves_websockets else CONSOLE_CONFIG


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


def _api_route(sandbox: Sandbox, mcp_token: str) -> Callable[[Request], Awaitable[Response]]:
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


# The WebSocket API's routes (`$request.body.action`); any other action is `$default`.
WS_ROUTES = frozenset({"subscribe", "unsubscribe"})


def _ws_route(sandbox: Sandbox) -> Callable[[WebSocket], Awaitable[None]]:
    """`/ws?token=sandbox-viewer`: API Gateway's WebSocket API around the real `ws` handler."""

    async def invoke(event: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = await run_in_threadpool(
            ws_handler, event, LambdaContext(f"instantstart-{WS_FUNCTION}")
        )
        return result

    async def endpoint(websocket: WebSocket) -> None:
        connection_id = uuid.uuid4().hex
        role = TOKENS.get(websocket.query_params.get("token", ""))
        # The authorizer: an unknown token never reaches $connect (API Gateway answers 401).
        if role is None:
            await websocket.close(code=1008, reason="Unauthorized")
            return
        authorizer = {"principal": websocket.query_params["token"], "role": role}
        frames = sandbox.websockets.open(connection_id)
        try:
            connected = await invoke(_ws_event("$connect", "CONNECT", connection_id, authorizer))
            if connected.get("statusCode") != 200:
                await websocket.close(code=1008, reason="Forbidden")
                return
            await websocket.accept()
            sender = asyncio.create_task(_send(websocket, frames))
            try:
                while True:
                    body = await websocket.receive_text()
                    await invoke(_ws_event(_route_of(body), "MESSAGE", connection_id, authorizer, body))
            except WebSocketDisconnect:
                pass
            finally:
                sender.cancel()
        finally:
            sandbox.websockets.close(connection_id)
            await invoke(_ws_event("$disconnect", "DISCONNECT", connection_id, authorizer))

    return endpoint


async def _send(websocket: WebSocket, frames: asyncio.Queue[str]) -> None:
    while True:
        await websocket.send_text(await frames.get())


def _route_of(body: str) -> str:
    try:
        action = json.loads(body).get("action")
    except (ValueError, AttributeError):
        return "$default"
    return action if action in WS_ROUTES else "$default"


def _ws_event(
    route: str, event_type: str, connection_id: str, authorizer: dict[str, str], body: str | None = None
) -> dict[str, Any]:
    """The API Gateway WebSocket event of a connect, a disconnect or a message."""
    return {
        "requestContext": {
            "routeKey": route,
            "eventType": event_type,
            "connectionId": connection_id,
            "apiId": API_ID,
            "stage": STAGE,
            "domainName": f"{API_ID}.execute-api.us-east-1.amazonaws.com",
            "requestId": str(uuid.uuid4()),
            "authorizer": authorizer,
        },
        "isBase64Encoded": False,
        **({"body": body} if body is not None else {}),
    }


def _mcp_user(token: str) -> VerifiedUser | None:
    """The sandbox's bearer tokens stand for Cognito users in the group of the same role."""
    role = TOKENS.get(token)
    return VerifiedUser(principal=token, source="cognito", groups=(role,)) if role else None


def build_app(sandbox: Sandbox) -> Starlette:
    # The MCP server's identity toward /api: made here, held only by this process's MCP server.
    mcp_token = secrets.token_urlsafe(32)

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
        """Mark a HyperPod node unhealthy and emit its Node Health Event; HyperPod replaces it shortly after when it
        repairs (`hyperPodRepairs`, by default the cluster's NodeRecovery Automatic), else the remediation policy
        decides."""
        try:
            payload = json.loads(await request.body() or b"{}")
            repairs = payload.get("hyperPodRepairs")
            if repairs is not None and not isinstance(repairs, bool):
                raise ValueError("hyperPodRepairs must be true or false")
            await run_in_threadpool(
                sandbox.hyperpod.mark_node_unhealthy, str(payload["clusterName"]), str(payload["nodeId"]), repairs
            )
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error}. Body: {{"clusterName": "hp-cluster-<tag>", "nodeId": "i-...", '
                    '"hyperPodRepairs": false}',
                },
                status_code=400,
            )
        return Response(status_code=204)

    async def kill_job_process(request: Request) -> Response:
        """Kill a training job's process (now, or once it has written `afterLines` log lines)."""
        try:
            payload = json.loads(await request.body() or b"{}")
            after = int(payload.get("afterLines", 0))
            if after < 0:
                raise ValueError("afterLines must be at least 0")
            cluster = f"eks-cluster-{payload['clusterTag']}"
            sandbox.training.kill(cluster, str(payload.get("namespace", "default")), str(payload["jobName"]), after)
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error!r}. Body: {{"clusterTag": "demo", "jobName": "llama", "namespace": "default", '
                    '"afterLines": 0}',
                },
                status_code=400,
            )
        return Response(status_code=204)

    async def fail_download(request: Request) -> Response:
        """Fail the next download of a repository (its Job ends Failed with `message`)."""
        try:
            payload = json.loads(await request.body() or b"{}")
            message = payload.get("message")
            repo_id = str(payload["repoId"])
            if message is None:
                sandbox.downloads.fail(repo_id)
            else:
                sandbox.downloads.fail(repo_id, str(message))
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error!r}. Body: {{"repoId": "Qwen/Qwen2.5-0.5B", "message": "…"}}',
                },
                status_code=400,
            )
        return Response(status_code=204)

    async def change_out_of_band(request: Request) -> Response:
        """Delete a role or resize a group behind the control plane's back (a drift check then reports it)."""
        try:
            payload = json.loads(await request.body() or b"{}")
            out_of_band.apply(sandbox.hyperpod, payload)
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {"code": "InvalidRequest", "message": f"{error!r}. Body: {out_of_band.USAGE}"}, status_code=400
            )
        return Response(status_code=204)

    async def list_quotas(request: Request) -> Response:
        region = request.query_params.get("region", "us-west-2")
        service = request.query_params.get("serviceCode", "sagemaker")
        quotas = sandbox.quotas.quotas(region, service)
        return JSONResponse({"region": region, "quotas": [q.wire(region, ACCOUNT_ID) for q in quotas]})

    async def set_quota(request: Request) -> Response:
        """Set one quota's applied value, by instance type (its cluster-usage quota) or by service and name."""
        try:
            payload = json.loads(await request.body() or b"{}")
            region = str(payload["region"])
            if "instanceType" in payload:
                service, name = "sagemaker", f"{payload['instanceType']} for cluster usage"
            else:
                service, name = str(payload["serviceCode"]), str(payload["quotaName"])
            value = int(payload["value"])
            if value < 0:
                raise ValueError("value must be at least 0")
            quota = sandbox.quotas.set(region, service, name, value)
        except (KeyError, ValueError, TypeError) as error:
            return JSONResponse(
                {
                    "code": "InvalidRequest",
                    "message": f'{error!r}. Body: {{"region": "us-west-2", "instanceType": "ml.g6.4xlarge", '
                    '"value": 4} or {"region": ..., "serviceCode": "vpc", "quotaName": "VPCs per Region", "value": 10}',
                },
                status_code=400,
            )
        return JSONResponse(quota.wire(region, ACCOUNT_ID))

    async def console_page(request: Request) -> Response:
        index = CONSOLE_DIR / "index.html"
        if not index.is_file():
            return HTMLResponse(LANDING.replace("<!-- console -->", NOT_BUILT), status_code=404)
        return FileResponse(index, headers={"Cache-Control": "no-store"})

    async def console_config(request: Request) -> Response:
        return JSONResponse(live_console_config(), headers={"Cache-Control": "no-store"})

    return Starlette(
        routes=[
            Route("/config.json", console_config),
            Mount("/assets", app=StaticFiles(directory=CONSOLE_DIR / "assets", check_dir=False)),
            Route("/api/{path:anypath}", _api_route(sandbox, mcp_token), methods=API_METHODS),
            Route("/sandbox/faults", add_fault, methods=["POST"]),
            Route("/sandbox/faults", list_faults, methods=["GET"]),
            Route("/sandbox/faults", clear_faults, methods=["DELETE"]),
            Route("/sandbox/node-faults", fail_node, methods=["POST"]),
            Route("/sandbox/job-faults", kill_job_process, methods=["POST"]),
            Route("/sandbox/download-faults", fail_download, methods=["POST"]),
            Route("/sandbox/out-of-band", change_out_of_band, methods=["POST"]),
            Route("/sandbox/quotas", list_quotas, methods=["GET"]),
            Route("/sandbox/quotas", set_quota, methods=["PUT"]),
            Mount("/k8s", app=kubernetes_app(sandbox.emulator)),
            WebSocketRoute("/ws", _ws_route(sandbox)),
            # MCP streamable HTTP at /mcp (+ its RFC 9728 metadata under /.well-known): the server calls the
            # API as itself and each request has the weaker of the user's role and the server's.
            Route("/{path:consolepath}", console_page),
            Mount("", app=build_asgi_app(bearer_api("/api", mcp_token), _mcp_user)),
        ]
    )


LANDING = """<!doctype html><html><head><meta charset="utf-8"><title>InstantStart sandbox</title></head>
<body style="font-family: sans-serif; max-width: 48rem; margin: 2rem auto">
<h1>InstantStart sandbox</h1>
<!-- console -->
<p>The control plane runs here against a simulated AWS account (moto) and simulated Kubernetes API servers.
State lives in memory and is lost when the process stops.</p>
<ul><li>REST API: <code>/api</code> &mdash; OpenAPI document at <code>/api/openapi.json</code>, Swagger UI at
<code>/api/docs</code> (send <code>Authorization: Bearer sandbox-viewer</code>).</li>
<li>Live logs: WebSocket <code>/ws?token=sandbox-viewer</code>, then send
<code>{"action": "subscribe", "clusterTag": "demo", "jobName": "llama"}</code>.</li>
<li>Tokens: <code>sandbox-admin</code>, <code>sandbox-operator</code>, <code>sandbox-viewer</code>.</li>
<li>Faults: <code>POST /sandbox/faults {"step": "Create EKS Cluster", "times": 1}</code>.</li>
<li>Node faults: <code>POST /sandbox/node-faults {"clusterName": "hp-cluster-demo", "nodeId": "i-...",
"hyperPodRepairs": false}</code> marks a node unhealthy and emits its Node Health Event.</li>
<li>Job faults: <code>POST /sandbox/job-faults {"clusterTag": "demo", "jobName": "llama", "afterLines": 5}</code>
kills a training job's process.</li>
<li>Download faults: <code>POST /sandbox/download-faults {"repoId": "Qwen/Qwen2.5-0.5B"}</code> fails that
repository's next download.</li>
<li>Out-of-band changes: <code>POST /sandbox/out-of-band {"action": "resize-group", "clusterName":
"hp-cluster-demo", "instanceGroup": "workers", "instanceCount": 2}</code> (or <code>"action": "delete-role",
"roleName": ...</code>); a drift check reports them.</li>
<li>Quotas: <code>PUT /sandbox/quotas {"region": "us-west-2", "instanceType": "ml.g6.4xlarge", "value": 2}</code>
(<code>GET /sandbox/quotas?region=us-west-2&amp;serviceCode=sagemaker</code> lists them).</li></ul>
</body></html>"""

NOT_BUILT = """<p><strong>The web console is not built.</strong> <code>make run</code> builds it
(<code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code> by hand).</p>"""
