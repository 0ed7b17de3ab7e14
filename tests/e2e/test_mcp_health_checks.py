"""A seed-style conversation through the MCP tools alone: the agent lists the nodes, plans deep health checks on a
group (the person is asked: the nodes leave scheduling and a failing one is replaced), confirms with the token, and
follows the operation with operation_wait to each node's outcome; a node given a fault is replaced."""

from __future__ import annotations

from typing import Any

from tests.mcp_conversation import Tool, converse

TAG = "mcpcheck"


def test_deep_health_checks_on_a_group_end_with_each_nodes_outcome_through_tools_alone(running_sandbox):
    running_sandbox.build_cluster(TAG, instances=2)
    first, second = sorted(
        node["nodeId"] for node in running_sandbox.client("sandbox-admin").get(f"/clusters/{TAG}/nodes").json()["nodes"]
    )
    running_sandbox.sandbox.hyperpod.fail_health_check(f"hp-cluster-{TAG}", second)

    async def story(tool: Tool) -> tuple[dict[str, Any], dict[str, Any], str]:
        _, listed = await tool("hyperpod_list_nodes", {"clusterTag": TAG})
        group = listed["nodes"][0]["instanceGroup"]
        request = {"clusterTag": TAG, "instanceGroups": [group]}
        _, plan = await tool("hyperpod_health_check", request)
        said, operation = await tool(
            "hyperpod_health_check", {**request, "confirmationToken": plan["confirmationToken"]}
        )
        while operation["status"] in ("PENDING", "RUNNING"):
            said, operation = await tool("operation_wait", {"operationId": operation["operationId"]})
        return plan, operation, said

    (plan, operation, said), calls, _ = converse(running_sandbox, story, token="sandbox-admin")
    assert "out of scheduling" in plan["message"] and "operationId" not in plan
    assert [action["name"] for action in plan["actions"]] == [first, second]
    assert (operation["kind"], operation["status"]) == ("check_node_health", "SUCCEEDED")
    healthy, replaced = operation["stages"][0]["message"].split("; ")
    assert healthy == f"{first} healthy" and replaced.startswith(f"{second} replaced by i-")
    assert "hyperpod_list_nodes" in said
    assert calls[:3] == ["hyperpod_list_nodes", "hyperpod_health_check", "hyperpod_health_check"]
