"""The remote transport: streamable HTTP in stateless JSON mode, behind bearer authentication.

Belongs here: the ASGI app (the MCP endpoint and its RFC 9728 protected-resource metadata), the
401 challenge, and choosing the API credential for a verified user. Each request gets its own
server and session manager (stateless mode keeps nothing between requests, and the manager's
lifespan runs once per instance), so the app needs no lifespan of its own and can be mounted.

In AWS the server calls the API with its own IAM identity and the API applies the role bound to
that identity; the verified user travels only as audit data. The sandbox has no IAM, so it maps
the verified user to the sandbox credential of the same role (`api_token_for`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import anyio
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import ToolSpec, tools_from_openapi

METADATA_PREFIX = "/.well-known/oauth-protected-resource"
LOCAL_ONLY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)


def build_asgi_app(
    api_url: str,
    api_token: str,
    verify_token: Callable[[str], str | None],
    *,
    api_token_for: Callable[[str], str] | None = None,
    path: str = "/mcp",
    authorization_servers: Sequence[str] = (),
    transport_security: TransportSecuritySettings = LOCAL_ONLY,
) -> ASGIApp:
    """The MCP endpoint at `path` and its metadata at `/.well-known/oauth-protected-resource<path>`.

    `verify_token` returns the user a bearer token belongs to, or None. `api_url` may be a path
    (`/api`): it is then resolved against the origin of each request (the sandbox serves both).
    Mount the app at the root of the origin so the metadata sits where RFC 9728 puts it.
    """
    endpoint = _McpEndpoint(api_url, api_token, verify_token, api_token_for, path, transport_security)

    async def metadata(request: Request) -> Response:
        return JSONResponse(
            {
                "resource": f"{_origin(request)}{request.scope.get('root_path', '')}{path}",
                "authorization_servers": list(authorization_servers),
                "bearer_methods_supported": ["header"],
                "resource_name": "InstantStart MCP server",
            }
        )

    return Starlette(
        routes=[
            Route(path, endpoint=endpoint, methods=["GET", "POST", "DELETE"]),
            Route(METADATA_PREFIX + path, metadata, methods=["GET"]),
        ]
    )


class _McpEndpoint:
    """Authenticates each request, then serves it with a fresh stateless server acting for that user."""

    def __init__(
        self,
        api_url: str,
        api_token: str,
        verify_token: Callable[[str], str | None],
        api_token_for: Callable[[str], str] | None,
        path: str,
        transport_security: TransportSecuritySettings,
    ) -> None:
        self._api_url = api_url
        self._api_token = api_token
        self._verify_token = verify_token
        self._api_token_for = api_token_for or (lambda user: api_token)
        self._path = path
        self._security = transport_security
        self._clients: dict[tuple[str, str], ApiClient] = {}
        self._specs: list[ToolSpec] | None = None
        self._specs_lock = anyio.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        user = self._verify_token(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
        if user is None:
            await self._challenge(request, presented=bool(token.strip()))(scope, receive, send)
            return
        api_url = _origin(request) + self._api_url if self._api_url.startswith("/") else self._api_url
        server = build_server(await self._tool_specs(api_url), self._client(api_url, self._api_token_for(user)), user)
        manager = StreamableHTTPSessionManager(
            app=server, json_response=True, stateless=True, security_settings=self._security
        )
        async with manager.run():
            await manager.handle_request(scope, receive, send)

    def _challenge(self, request: Request, presented: bool) -> Response:
        metadata = f"{_origin(request)}{METADATA_PREFIX}{request.scope.get('root_path', '')}{self._path}"
        error = 'error="invalid_token", ' if presented else ""
        return JSONResponse(
            {"code": "Unauthenticated", "message": "Send Authorization: Bearer <token> issued for this MCP server."},
            status_code=401,
            headers={"WWW-Authenticate": f'Bearer {error}resource_metadata="{metadata}"'},
        )

    def _client(self, api_url: str, token: str) -> ApiClient:
        key = (api_url, token)
        if key not in self._clients:
            self._clients[key] = ApiClient(api_url, token)
        return self._clients[key]

    async def _tool_specs(self, api_url: str) -> list[ToolSpec]:
        """The API's operations, read once per process from its OpenAPI document."""
        async with self._specs_lock:
            if self._specs is None:
                document = await self._client(api_url, self._api_token).openapi_document()
                self._specs = tools_from_openapi(document)
            return self._specs


def _origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"
