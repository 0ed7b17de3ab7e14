"""The sandbox's one ASGI app: the console, the REST and WebSocket APIs, the controls, every cluster's Kubernetes
API and the MCP server, routed as the package docstring says."""

from __future__ import annotations

import secrets

from starlette.applications import Starlette
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from mcp_server.auth import VerifiedUser
from mcp_server.http import bearer_api, build_asgi_app
from sandbox.k8s.http import asgi_app as kubernetes_app
from sandbox.runtime import TOKENS, Sandbox
from sandbox.server.console import CONSOLE_DIR, console_config, console_page
from sandbox.server.controls import control_routes
from sandbox.server.rest import API_METHODS, api_route
from sandbox.server.websocket import ws_route


def _mcp_user(token: str) -> VerifiedUser | None:
    """The sandbox's bearer tokens stand for Cognito users in the group of the same role."""
    role = TOKENS.get(token)
    return VerifiedUser(principal=token, source="cognito", groups=(role,)) if role else None


def build_app(sandbox: Sandbox) -> Starlette:
    # The MCP server's identity toward /api: made here, held only by this process's MCP server.
    mcp_token = secrets.token_urlsafe(32)
    return Starlette(
        routes=[
            Route("/config.json", console_config),
            Mount("/assets", app=StaticFiles(directory=CONSOLE_DIR / "assets", check_dir=False)),
            Route("/api/{path:anypath}", api_route(sandbox, mcp_token), methods=API_METHODS),
            *control_routes(sandbox),
            Mount("/k8s", app=kubernetes_app(sandbox.emulator)),
            WebSocketRoute("/ws", ws_route(sandbox)),
            # MCP streamable HTTP at /mcp (+ its RFC 9728 metadata under /.well-known): the server calls the
            # API as itself and each request has the weaker of the user's role and the server's.
            Route("/{path:consolepath}", console_page),
            Mount("", app=build_asgi_app(bearer_api("/api", mcp_token), _mcp_user)),
        ]
    )
