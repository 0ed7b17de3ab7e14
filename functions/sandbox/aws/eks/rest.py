"""EKS REST routes added to moto's EKS URL table: reading a request, writing a response or an error.

moto calls a route as ``dispatch(request, full_url, headers)`` and expects ``(status, headers, body)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from moto.eks import urls as eks_urls

from sandbox.aws.eks.errors import EksError
from sandbox.aws.patches import Patches

Response = tuple[int, dict[str, str], str]
Handler = Callable[["RestCall"], Response]
CLUSTER = "{0}/clusters/(?P<name>[^/]+)"


@dataclass(frozen=True)
class RestCall:
    region: str
    method: str
    parts: list[str]  # the URL path, unquoted: ["clusters", name, ...]
    query: dict[str, list[str]]
    body: dict[str, Any]

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


def route(patterns: list[str], handler: Handler, patches: Patches) -> None:
    """Serve URL ``patterns`` (moto's ``{0}`` is the endpoint) with ``handler``; EksError becomes an error body."""

    def dispatch(request: Any, full_url: str, headers: Any) -> Response:
        parsed = urlparse(full_url)
        raw = request.get_data()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            return error(EksError(400, "InvalidParameterException", "The request body is not valid JSON."))
        call = RestCall(
            region=parsed.netloc.split(".")[1],
            method=request.method,
            parts=[unquote(part) for part in parsed.path.strip("/").split("/")],
            query=parse_qs(parsed.query),
            body=body,
        )
        try:
            return handler(call)
        except EksError as refused:
            return error(refused)

    for pattern in patterns:
        patches.replace(eks_urls.url_paths, pattern, dispatch)


def ok(payload: dict[str, Any]) -> Response:
    return 200, {}, json.dumps(payload)


def error(refused: EksError) -> Response:
    body = {"__type": refused.code, "message": refused.message, **refused.fields}
    return refused.status, {"x-amzn-ErrorType": refused.code}, json.dumps(body)
