"""The REST API as the MCP server sees it: HTTP calls made with the server's own identity.

Belongs here: building the request for a tool call (path, query, JSON body, headers) and reading the
response. The caller's own credential never reaches this module; the verified user travels only as
the audit header `X-InstantStart-On-Behalf-Of`.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from mcp_server.tools import ToolSpec

ON_BEHALF_OF = "X-InstantStart-On-Behalf-Of"
# The caller's effective role, which the API names in its answer to `/openapi.json`.
ROLE_HEADER = "X-InstantStart-Role"
TIMEOUT = httpx.Timeout(60.0, connect=10.0)


@dataclass(frozen=True)
class ApiDocument:
    """The API's OpenAPI document, and the role the API gives the caller who read it (None: not said)."""

    document: dict[str, Any]
    role: str | None


@dataclass(frozen=True)
class ApiResponse:
    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class ApiClient:
    """Calls the API at `api_url` as the server itself: `credential` is a bearer token or an `httpx.Auth`
    (SigV4 with the server's IAM role, `mcp_server.sigv4`)."""

    def __init__(
        self, api_url: str, credential: str | httpx.Auth, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        if isinstance(credential, str):
            headers, auth = {"Authorization": f"Bearer {credential}"}, None
        else:
            headers, auth = {}, credential
        self._http = httpx.AsyncClient(
            base_url=api_url.rstrip("/"),
            headers=headers,
            auth=auth,
            timeout=TIMEOUT,
            transport=transport,
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def openapi_document(self, on_behalf_of: str | None = None) -> ApiDocument:
        """The API's OpenAPI document and the caller's role; raises `httpx.HTTPError` when the API refuses or
        cannot be reached."""
        response = await self._http.get("/openapi.json", headers={ON_BEHALF_OF: on_behalf_of} if on_behalf_of else {})
        response.raise_for_status()
        return ApiDocument(document=response.json(), role=response.headers.get(ROLE_HEADER))

    async def call(
        self,
        spec: ToolSpec,
        arguments: dict[str, Any],
        on_behalf_of: str | None = None,
        extra_query: dict[str, Any] | None = None,
    ) -> ApiResponse:
        path = spec.path
        for name in spec.path_params:
            path = path.replace("{" + name + "}", quote(str(arguments[name]), safe=""))
        query = {name: _query_value(arguments[name]) for name in spec.query_params if arguments.get(name) is not None}
        query.update(extra_query or {})
        headers = {ON_BEHALF_OF: on_behalf_of} if on_behalf_of else {}
        if spec.method != "GET":
            headers["Idempotency-Key"] = str(uuid.uuid4())
        body = {name: arguments[name] for name in spec.body_params if name in arguments} if spec.has_body else None
        try:
            response = await self._http.request(spec.method, path, params=query, json=body, headers=headers)
        except httpx.TransportError as error:
            return ApiResponse(status=503, body=_unreachable(self._http.base_url, spec.name, error))
        return ApiResponse(status=response.status_code, body=_json(response))


def _unreachable(url: httpx.URL, tool: str, error: httpx.TransportError) -> dict[str, Any]:
    """An outage as the API's own error body would say it."""
    return {
        "code": "ApiUnavailable",
        "message": f"The InstantStart API at {url} did not answer ({type(error).__name__}: {error or 'no detail'}); "
        f"nothing was changed by this call. Check that the API is running, then call {tool} again.",
    }


def _query_value(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return {"code": "UnexpectedResponse", "message": response.text[:500] or response.reason_phrase}
