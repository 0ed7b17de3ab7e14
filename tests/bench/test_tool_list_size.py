"""What an agent pays for the tool list on every session: the admin's list in characters beside the 306k (≈110k
without output schemas) issue 30 measured (finding 9), the target, and the largest tools.

The list publishes no output schemas (each description names its result's fields instead); compacting the input
schemas and the repeated wording took it from 292,604 characters to about 113k. The rest is the argument schemas and
the descriptions an agent works from: the target needs shorter API text, not a smaller encoding of it."""

from __future__ import annotations

import json

import mcp_types as types
import pytest

from api.app import openapi_document
from mcp_server.tools import tools_from_openapi

# Issue 30, finding 9: the admin list before any reduction, and what it must come down to.
MEASURED_IN_ISSUE = 306_000
TARGET = 60_000
# Where compacting the schemas and wording brought it: a new tool or field stays within it.
CEILING = 120_000


def size(tools: list[types.Tool]) -> int:
    """Characters of the tools/list result as the server sends it (JSON, no indentation)."""
    listed = [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools]
    return len(json.dumps({"tools": listed}, separators=(",", ":")))


def admin_tools() -> list[types.Tool]:
    return [spec.tool() for spec in tools_from_openapi(openapi_document())]


def test_the_admin_tool_list_size():
    tools = admin_tools()
    whole = size(tools)
    largest = sorted(tools, key=lambda tool: -size([tool]))[:5]
    print(
        f"\nadmin tool list: {len(tools)} tools, {whole:,} characters (output schemas: "
        f"{sum(1 for tool in tools if tool.output_schema)}); issue 30 measured {MEASURED_IN_ISSUE:,}, "
        f"target {TARGET:,}\n" + "\n".join(f"  {tool.name}: {size([tool]):,}" for tool in largest)
    )
    assert whole <= CEILING, "the tool list grew past what compacting it reached"


@pytest.mark.xfail(strict=True, reason="issue 30, finding 9: about 113k; the rest is argument schemas and API text")
def test_the_admin_tool_list_fits_the_target():
    assert size(admin_tools()) <= TARGET
