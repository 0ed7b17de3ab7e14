"""The remote transport: stateless streamable HTTP (SSE answers, or JSON behind a buffering front), authenticated.

Belongs here: the ASGI app (the MCP endpoint, its RFC 9728 protected-resource metadata and the
401 challenge that points to it), and serving each authenticated request with a fresh stateless
server acting for that user. Each request gets its own server and session manager (stateless mode
keeps nothing between requests, and the manager's lifespan runs once per instance), so the app needs
no lifespan of its own and can be mounted, or driven by `lambda_handler` from API Gateway events.

The server never passes the caller's credential on: `api_for` gives the API client of the server's
own identity (SigV4 with its IAM role in AWS, a bearer token standing for that role in the sandbox:
`bearer_api`), and the verified user travels in the audit header, from which the API takes the
weaker of the user's role and the server's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import anyio
import httpx
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_server.auth import VerifiedUser
from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import MAX_WAIT_SECONDS, ToolSpec, tools_from_openapi

METADATA_PREFIX = "/.well-known/oauth-protected-resource"
# Stateless mode has no session to delete and no standalone stream to open: GET (a standalone SSE stream,
# which would hold a Lambda invocation until it times out) and DELETE get 405, as the spec allows.
MCP_METHODS = ["POST"]
LOCAL_ONLY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)

# The API client to use for a request made by a verified user.
ApiFor = Callable[[Request, VerifiedUser], ApiClient]
# The caller of a request that something in front of the app has authenticated, or None.
Authenticate = Callable[[Request], VerifiedUser | None]


def build_asgi_app(
    api_for: ApiFor,
    verify_token: Callable[[str], VerifiedUser | None],
    *,
    path: str = "/mcp",
    signed_endpoints: Mapping[str, Authenticate] | None = None,
    authorization_servers: Sequence[str] = (),
    transport_security: TransportSecuritySettings = LOCAL_ONLY,
    max_wait_seconds: int = MAX_WAIT_SECONDS,
    stream: bool = True,
) -> ASGIApp:
    """The MCP endpoint at `path` (OAuth bearer) and its metadata at `/.well-known/oauth-protected-resource<path>`.

    `verify_token` returns the user a bearer token belongs to, or None. `signed_endpoints` are further
    MCP endpoints whose caller a proxy in front has already verified (API Gateway's AWS_IAM
    authorization); they have no OAuth metadata. Mount the app at the root of the origin (or of an
    API Gateway stage): the challenge names the metadata's URL under the request's root path.
    `stream` answers a call as an SSE stream, so progress notifications arrive while it runs; without
    it (a front that buffers whole responses, API Gateway) the answer is one JSON body.
    """
    tools = _ToolCatalog()

    def bearer(request: Request) -> VerifiedUser | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return verify_token(token.strip()) if scheme.lower() == "bearer" and token.strip() else None

    def endpoint(authenticate: Authenticate, challenge: Callable[[Request], Response]) -> _McpEndpoint:
        return _McpEndpoint(api_for, authenticate, challenge, tools, transport_security, max_wait_seconds, stream)

    def bearer_challenge(request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        error = 'error="invalid_token", ' if scheme.lower() == "bearer" and token.strip() else ""
        metadata = f"{_origin(request)}{request.scope.get('root_path', '')}{METADATA_PREFIX}{path}"
        return JSONResponse(
            {"code": "Unauthenticated", "message": "Send Authorization: Bearer <token> issued for this MCP server."},
            status_code=401,
            headers={"WWW-Authenticate": f'Bearer {error}resource_metadata="{metadata}"'},
        )

    async def metadata(request: Request) -> Response:
        return JSONResponse(
            {
                "resource": f"{_origin(request)}{request.scope.get('root_path', '')}{path}",
                "authorization_servers": list(authorization_servers),
                "bearer_methods_supported": ["header"],
                "resource_name": "InstantStart MCP server",
            }
        )

    routes = [
        Route(path, endpoint=endpoint(bearer, bearer_challenge), methods=MCP_METHODS),
        Route(METADATA_PREFIX + path, metadata, methods=["GET"]),
    ]
    for signed_path, authenticate in (signed_endpoints or {}).items():
        routes.append(Route(signed_path, endpoint=endpoint(authenticate, _unsigned), methods=MCP_METHODS))
    return Starlette(routes=routes)


def bearer_api(api_url: str, token: str) -> ApiFor:
    """API clients calling with the server's own bearer `token` (the sandbox). A path `api_url` (`/api`)
    is resolved against the origin of each request (the sandbox serves both)."""
    clients: dict[str, ApiClient] = {}

    def api_for(request: Request, user: VerifiedUser) -> ApiClient:
        url = _origin(request) + api_url if api_url.startswith("/") else api_url
        if url not in clients:
            clients[url] = ApiClient(url, token)
        return clients[url]

    return api_for


class _ToolCatalog:
    """The API's operations as tool specs, read once per process from its OpenAPI document, and the role the
    API gives each user (read with the document, kept per user)."""

    MAX_USERS = 1024

    def __init__(self) -> None:
        self._specs: list[ToolSpec] | None = None
        self._roles: dict[str, str | None] = {}
        self._lock = anyio.Lock()

    async def for_user(self, api: ApiClient, user: VerifiedUser) -> tuple[list[ToolSpec], str | None]:
        """(every tool, the user's role); raises `httpx.HTTPStatusError` when the API refuses the user."""
        header = user.header()
        async with self._lock:
            if self._specs is None or header not in self._roles:
                api_document = await api.openapi_document(header)
                if len(self._roles) >= self.MAX_USERS:
                    self._roles.clear()
                self._roles[header] = api_document.role
                if self._specs is None:
                    self._specs = tools_from_openapi(api_document.document)
            return self._specs, self._roles[header]


class _McpEndpoint:
    """Authenticates each request, then serves it with a fresh stateless server acting for that user."""

    def __init__(
        self,
        api_for: ApiFor,
        authenticate: Authenticate,
        challenge: Callable[[Request], Response],
        tools: _ToolCatalog,
        transport_security: TransportSecuritySettings,
        max_wait_seconds: int,
        stream: bool,
    ) -> None:
        self._api_for = api_for
        self._authenticate = authenticate
        self._challenge = challenge
        self._tools = tools
        self._security = transport_security
        self._max_wait_seconds = max_wait_seconds
        self._stream = stream

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        user = self._authenticate(request)
        if user is None:
            await self._challenge(request)(scope, receive, send)
            return
        api = self._api_for(request, user)
        try:
            specs, role = await self._tools.for_user(api, user)
        except httpx.HTTPStatusError as error:
            if not error.response.is_client_error:
                raise
            # The API refused this user (no InstantStart role, ...): pass its answer on, never a 5xx.
            refusal = Response(error.response.content, error.response.status_code, media_type="application/json")
            await refusal(scope, receive, send)
            return
        server = build_server(
            specs, api, user.header(), max_wait_seconds=self._max_wait_seconds, progress=self._stream, role=role
        )
        manager = StreamableHTTPSessionManager(
            app=server, json_response=not self._stream, stateless=True, security_settings=self._security
        )
        async with manager.run():
            await manager.handle_request(scope, receive, send)


def _unsigned(request: Request) -> Response:
    return JSONResponse(
        {"code": "Unauthenticated", "message": "Sign the request with SigV4 (service execute-api)."}, status_code=401
    )


def _origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"
