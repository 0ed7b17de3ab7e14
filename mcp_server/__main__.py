"""`python -m mcp_server --api-url http://127.0.0.1:8000/api`: the MCP server over stdio for local agents.

The API token comes from `--token` or the environment variable `INSTANTSTART_API_TOKEN`. The tools
are read from the API's OpenAPI document at start-up.
"""

from __future__ import annotations

import argparse
import os

import anyio
from mcp.server.stdio import stdio_server

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi

TOKEN_VARIABLE = "INSTANTSTART_API_TOKEN"


async def serve(api_url: str, token: str) -> None:
    api = ApiClient(api_url, token)
    try:
        server = build_server(tools_from_openapi(await api.openapi_document()), api)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await api.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m mcp_server", description=__doc__)
    parser.add_argument("--api-url", required=True, help="Base URL of the REST API, e.g. http://127.0.0.1:8000/api")
    parser.add_argument("--token", default=os.environ.get(TOKEN_VARIABLE), help=f"API token (or ${TOKEN_VARIABLE})")
    args = parser.parse_args()
    if not args.token:
        parser.error(f"an API token is required: pass --token or set {TOKEN_VARIABLE}")
    anyio.run(serve, args.api_url, args.token)


if __name__ == "__main__":
    main()
