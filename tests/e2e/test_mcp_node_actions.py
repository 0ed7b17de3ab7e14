"""Node actions through the MCP tools alone: a reboot is an operation that operation_wait follows to a node that is
Running, Ready and schedulable again."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi

TAG = "mcpnode"


def test_reboot_then_operation_wait_ends_with_the_node_healthy_through_tools_alone(running_sandbox):
    running_sandbox.build_cluster(TAG)

    async def conversation() -> tuple[dict[str, Any], dict[str, Any]]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                return dict(result.structured_content)

            (node,) = (await tool("hyperpod_list_nodes", {"clusterTag": TAG}))["nodes"]
            operation = await tool("hyperpod_node_reboot", {"clusterTag": TAG, "nodeId": node["nodeId"]})
            while operation["status"] in ("PENDING", "RUNNING"):
                operation = await tool("operation_wait", {"operationId": operation["operationId"]})
            (after,) = (await tool("hyperpod_list_nodes", {"clusterTag": TAG}))["nodes"]
            return operation, after

    operation, node = asyncio.run(conversation())
    assert (operation["kind"], operation["status"]) == ("reboot_nodes", "SUCCEEDED")
    assert (node["status"], node["ready"], node["schedulable"], node["health"]) == (
        "Running",
        True,
        True,
        "Schedulable",
    )
