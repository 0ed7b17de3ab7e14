"""An agent's conversation with the MCP tools against a running sandbox, through the official SDK client in memory."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi

# A tool call: its name and arguments in; its lead sentence and structured body out (a tool error fails the test).
Tool = Callable[[str, dict[str, Any]], Awaitable[tuple[str, dict[str, Any]]]]


def converse(
    running_sandbox: Any, story: Callable[[Tool], Awaitable[Any]], token: str = "sandbox-operator"
) -> tuple[Any, list[str], list[str]]:
    """Run `story` against the tools as the caller `token`; what it returned, the tools called and the progress
    messages received."""
    calls: list[str] = []
    progress: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async def conversation() -> Any:
        api = ApiClient(f"{running_sandbox.base_url}/api", token)
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
                calls.append(name)
                result = await client.call_tool(name, arguments, progress_callback=on_progress)
                assert not result.is_error, result.content
                return result.content[0].text.split("\n", 1)[0], dict(result.structured_content)

            return await story(tool)

    return asyncio.run(conversation()), calls, progress


async def waited(tool: Tool, operation_id: str) -> dict[str, Any]:
    """The operation once it ended, waited for with `operation_wait` as an agent does (~30 s a call at most)."""
    _, operation = await tool("operation_wait", {"operationId": operation_id})
    while operation["status"] in ("PENDING", "RUNNING"):
        _, operation = await tool("operation_wait", {"operationId": operation_id})
    return operation
