"""The web console as CloudFront serves it: the built `frontend/dist` (assets by name, any other page its
`index.html`, `app` routes them) and a `config.json` whose sign-in is a choice of sandbox role; a landing page while
it is not built."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response


class _ConsolePath(Convertor[str]):
    """A console page: any path but those the API, the MCP server and the sandbox's controls answer."""

    regex = r"(?!api(/|$)|mcp(/|$)|ws(/|$)|\.well-known/|k8s/|sandbox/|assets/).*"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("consolepath", _ConsolePath())

# The console's build (`make run` and `make test` build it first).
CONSOLE_DIR = Path(__file__).resolve().parents[3] / "frontend" / "dist"
CONSOLE_CONFIG = {"apiBase": "/api", "auth": {"mode": "sandbox", "roles": ["viewer", "operator", "admin"]}}


def live_console_config() -> dict[str, Any]:
    """The console's `config.json`: live logs over `/ws` when the server speaks WebSocket (uvicorn needs `wsproto`
    or `websockets` for it); without, the console polls the logs route."""
    serves_websockets = any(importlib.util.find_spec(name) for name in ("wsproto", "websockets"))
    return {**CONSOLE_CONFIG, "wsBase": "/ws"} if serves_websockets else CONSOLE_CONFIG


async def console_page(request: Request) -> Response:
    index = CONSOLE_DIR / "index.html"
    if not index.is_file():
        return HTMLResponse(LANDING.replace("<!-- console -->", NOT_BUILT), status_code=404)
    return FileResponse(index, headers={"Cache-Control": "no-store"})


async def console_config(request: Request) -> Response:
    return JSONResponse(live_console_config(), headers={"Cache-Control": "no-store"})


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
<li>The controls below take JSON (<code>Content-Type: application/json</code>) and, like the WebSocket, refuse
requests sent by pages of another origin.</li>
<li>Faults: <code>POST /sandbox/faults {"step": "Create EKS Cluster", "times": 1}</code>.</li>
<li>Node faults: <code>POST /sandbox/node-faults {"clusterName": "hp-cluster-demo", "nodeId": "i-...",
"hyperPodRepairs": false}</code> marks a node unhealthy and emits its Node Health Event.</li>
<li>Health-check faults: <code>POST /sandbox/health-check-faults {"clusterName": "hp-cluster-demo", "nodeId": "i-...",
"recovery": "replace"}</code> makes the node fail its next deep health check (then rebooted or replaced).</li>
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
