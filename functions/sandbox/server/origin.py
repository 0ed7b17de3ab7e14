"""Who may drive the sandbox from a browser: pages of its own origin only (the console), never another site's.

The controls (`/sandbox/*`) take no token and the sandbox's tokens are public, so without these rules any page a
person visits could drive them through that person's browser. A cross-site "simple" request (a form POST, or
text/plain) reaches a route without a CORS preflight, its answer merely unreadable (Fetch standard, "CORS-safelisted
request-header"), and a WebSocket handshake is not subject to CORS at all: the server is to check Origin itself
(RFC 6455 §10.2).

- A request whose Origin is not its own (scheme and Host; the opaque `null` included) is refused.
- A request without Origin is served: a browser sends one on every request but GET and HEAD (Fetch standard,
  "append a request `Origin` header") and on every WebSocket handshake (RFC 6455 §4.1), so it comes from a
  program (curl, the tests, an SDK), which needs no browser to reach 127.0.0.1.
- A control's body (POST, PUT, PATCH) must be declared `application/json`: the only types a cross-site page can send
  without a preflight are the safelisted ones, and the sandbox answers no preflight.

The rules compare Origin with the Host the request names, so a page served under a host name that resolves to
127.0.0.1 (DNS rebinding) is same-origin here, as it is for the API; the sandbox listens on 127.0.0.1 only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

Endpoint = Callable[[Request], Awaitable[Response]]
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
JSON = "application/json"
# The scheme a page has whose WebSocket uses this one.
PAGE_SCHEMES = {"ws": "http", "wss": "https"}


def foreign_origin(connection: HTTPConnection) -> str | None:
    """The connection's Origin when a browser sent it from a page of another origin, else None."""
    origin = connection.headers.get("origin")
    if origin is None:
        return None
    scheme = PAGE_SCHEMES.get(connection.url.scheme, connection.url.scheme)
    own = f"{scheme}://{connection.headers.get('host', '')}"
    return None if origin.lower() == own.lower() else origin


def guarded(endpoint: Endpoint) -> Endpoint:
    """`endpoint` behind the rules: 403 for a foreign Origin, 415 for a body not declared JSON."""

    async def guard(request: Request) -> Response:
        origin = foreign_origin(request)
        if origin is not None:
            message = (
                f"Requests from pages of another origin ({origin}) are refused: the sandbox's controls serve its own "
                "pages and programs (which send no Origin header) only."
            )
            return JSONResponse({"code": "ForeignOrigin", "message": message}, status_code=403)
        media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
        if request.method in BODY_METHODS and media_type != JSON:
            return JSONResponse(
                {
                    "code": "UnsupportedMediaType",
                    "message": f"Send the body as JSON with the header Content-Type: {JSON} (this request's is "
                    f"'{media_type or 'none'}'); e.g. curl -H 'Content-Type: {JSON}' -d '{{...}}'.",
                },
                status_code=415,
            )
        return await endpoint(request)

    return guard
