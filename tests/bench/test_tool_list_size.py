"""What an agent pays for the tool list on every session: the admin's list in characters, with and without output
schemas, beside the 306k (≈110k without output schemas) issue 30 measured (finding 9), and the largest tools."""

from __future__ import annotations

import json

import mcp_types as types

from api.app import openapi_document
from mcp_server.tools import tools_from_openapi

# Issue 30, finding 9: the admin list before any reduction.
MEASURED_IN_ISSUE = 306_000
TARGET = 60_000


def size(tools: list[types.Tool], *, output_schemas: bool) -> int:
    """Characters of the tools/list result as the server sends it (JSON, no indentation)."""
    listed = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools]
    if not output_schemas:
        for tool in listed:
            tool.pop("outputSchema", None)
    return len(json.dumps({"tools": listed}, separators=(",", ":")))


def test_the_admin_tool_list_size():
    tools = [spec.tool() for spec in tools_from_openapi(openapi_document())]
    whole, inputs_only = size(tools, output_schemas=True), size(tools, output_schemas=False)
    largest = sorted(tools, key=lambda tool: -size([tool], output_schemas=True))[:5]
    print(
        f"\nadmin tool list: {len(tools)} tools, {whole:,} characters ({inputs_only:,} without output schemas); "
        f"issue 30 measured {MEASURED_IN_ISSUE:,}, target {TARGET:,}\n"
        + "\n".join(f"  {tool.name}: {size([tool], output_schemas=True):,}" for tool in largest)
    )
    assert whole <= MEASURED_IN_ISSUE * 1.1, "the tool list grew past what issue 30 measured"
