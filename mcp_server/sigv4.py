"""SigV4 signing of the MCP server's own API requests (API Gateway AWS_IAM authorization, `execute-api`).

Belongs here: an `httpx.Auth` that signs each request with botocore's `SigV4Auth` and the process's
credentials (in Lambda, the function's execution role). Only the headers the API reads are signed,
including the audit header, so nobody on the way can change whom the server says it acts for.

botocore is imported by the functions that sign, not with the module: it is the largest import the Lambda entry
point adds to the MCP SDK, and nothing at init or on a request that calls no API (the metadata document, a
refused caller) needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from functools import cache
from typing import Any

import httpx

SERVICE = "execute-api"
SIGNED_HEADERS = ("content-type", "idempotency-key", "x-instantstart-on-behalf-of")
SIGNATURE_HEADERS = ("Authorization", "X-Amz-Date", "X-Amz-Security-Token")


@cache
def _credential_chain() -> Any:
    from botocore.session import get_session  # on the first signature, not at init (see the module docstring)

    credentials = get_session().get_credentials()
    if credentials is None:
        raise RuntimeError("No AWS credentials found to sign API requests with.")
    return credentials


def process_credentials() -> Any:
    """The default credential chain's current credentials (botocore refreshes them when they expire)."""
    return _credential_chain().get_frozen_credentials()


class SigV4(httpx.Auth):
    requires_request_body = True

    def __init__(self, region: str, credentials: Callable[[], Any] = process_credentials) -> None:
        self._region = region
        self._credentials = credentials

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        from botocore.auth import SigV4Auth  # on the first signature, not at init (see the module docstring)
        from botocore.awsrequest import AWSRequest

        headers = {name: request.headers[name] for name in SIGNED_HEADERS if name in request.headers}
        signed = AWSRequest(method=request.method, url=str(request.url), data=request.content, headers=headers)
        SigV4Auth(self._credentials(), SERVICE, self._region).add_auth(signed)
        for name in SIGNATURE_HEADERS:
            if name in signed.headers:
                request.headers[name] = signed.headers[name]
        yield request
