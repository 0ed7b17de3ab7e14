"""`python -m mcp_server --api-url http://127.0.0.1:8000/api`: the MCP server over stdio for local agents.

The API token comes from `--token` or the environment variable `INSTANTSTART_API_TOKEN`. The tools
are read from the API's OpenAPI document at start-up, and only those the token's role may call are
offered; a refused token or an unreachable API ends the server with one line on stderr. One
operation_wait call waits at most `--max-wait-seconds` (by default below the MCP SDK's read timeout).
"""

from __future__ import annotations

import argparse
import os

import anyio
import httpx
from mcp.server.stdio import stdio_server

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import MAX_WAIT_SECONDS, tools_from_openapi

TOKEN_VARIABLE = "INSTANTSTART_API_TOKEN"


async def serve(api_url: str, token: str, max_wait_seconds: int = MAX_WAIT_SECONDS) -> None:
    api = ApiClient(api_url, token)
    try:
        try:
            api_document = await api.openapi_document()
        except httpx.HTTPStatusError as error:
            raise SystemExit(_refused(api_url, error.response)) from None
        except httpx.TransportError as error:
            raise SystemExit(
                f"hypd-inst: cannot reach the InstantStart API at {api_url} ({type(error).__name__}: {error}); "
                "start it (make run) or pass the right --api-url."
            ) from None
        except ValueError:
            raise SystemExit(
                f"hypd-inst: {api_url} is not the InstantStart API (its /openapi.json is not JSON); pass the API's "
                "base URL, e.g. http://127.0.0.1:8000/api."
            ) from None
        specs = tools_from_openapi(api_document.document)
        server = build_server(specs, api, role=api_document.role, max_wait_seconds=max_wait_seconds)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await api.aclose()


def _refused(api_url: str, response: httpx.Response) -> str:
    try:
        reason = str(response.json().get("message"))
    except ValueError:
        reason = response.text[:200] or response.reason_phrase
    return f"hypd-inst: the InstantStart API at {api_url} refused the token ({response.status_code}): {reason}"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m mcp_server", description=__doc__)
    parser.add_argument("--api-url", required=True, help="Base URL of the REST API, e.g. http://127.0.0.1:8000/api")
    parser.add_argument("--token", default=os.environ.get(TOKEN_VARIABLE), help=f"API token (or ${TOKEN_VARIABLE})")
    parser.add_argument(
        "--max-wait-seconds",
        type=int,
        default=MAX_WAIT_SECONDS,
        help=f"How long one operation_wait call waits at most (default {MAX_WAIT_SECONDS}; keep it below the "
        "client's read timeout)",
    )
    args = parser.parse_args()
    if not args.token:
        parser.error(f"an API token is required: pass --token or set {TOKEN_VARIABLE}")
    anyio.run(serve, args.api_url, args.token, args.max_wait_seconds)


if __name__ == "__main__":
    main()
