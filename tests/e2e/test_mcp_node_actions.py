"""Node actions through the MCP tools alone: a reboot is first a plan and a token (the agent asks the person), then an
operation that operation_wait follows to a node that is Running, Ready and schedulable again."""

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
            reboot = {"clusterTag": TAG, "nodeId": node["nodeId"]}
            plan = await tool("hyperpod_node_reboot", reboot)
            assert plan["confirmationToken"] and "operationId" not in plan
            operation = await tool("hyperpod_node_reboot", {**reboot, "confirmationToken": plan["confirmationToken"]})
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


def test_a_node_is_named_by_its_instance_id_or_its_kubernetes_name_through_tools_and_the_api(running_sandbox):
    """Status and pod tools name a node hyperpod-i-…, node tools took only i-… (issue 30, finding 8): both are
    accepted, and the action is on the instance."""
    tag = "mcpnames"
    running_sandbox.build_cluster(tag)
    api_client = running_sandbox.client("sandbox-admin")
    (node,) = api_client.get(f"/clusters/{tag}/nodes").json()["nodes"]
    instance = node["nodeId"]

    async def reboot_plan() -> dict[str, Any]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:
            arguments = {"clusterTag": tag, "nodeId": f"hyperpod-{instance}", "dryRun": True}
            result = await client.call_tool("hyperpod_node_reboot", arguments)
            assert not result.is_error, result.content
            return dict(result.structured_content)

    assert instance in str(asyncio.run(reboot_plan()))
    history = api_client.get(f"/clusters/{tag}/nodes/hyperpod-{instance}/history")
    assert history.status_code == 200, history.text
    batch = api_client.post(
        f"/clusters/{tag}/nodes/batch?dryRun=true", json={"action": "reboot", "nodeIds": [f"hyperpod-{instance}"]}
    )
    assert batch.status_code == 200, batch.text
    assert f"hyperpod-{instance}" not in batch.text and instance in batch.text
