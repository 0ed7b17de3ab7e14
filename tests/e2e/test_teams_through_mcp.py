"""Task governance in the sandbox, as an agent runs it through the MCP tools: with the taskGovernance feature enabled
on a cluster of two ml.g6.4xlarge, a team gets a quota of one, a second team asking for three is refused with what
is left, and changing or deleting a team, or changing the scheduler policy, is planned before it is confirmed; a new
team's namespace is prepared by an operation the agent waits for, and can be prepared again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi
from tests.mcp_conversation import converse

TAG = "mcpteams"
INSTANCE_TYPE = "ml.g6.4xlarge"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, instances=2, features={"taskGovernance": {"enabled": True}})
    return TAG


def quota(team: str, count: int) -> dict[str, Any]:
    return {"clusterTag": TAG, "team": team, "allocations": [{"instanceType": INSTANCE_TYPE, "count": count}]}


def test_an_agent_gives_a_team_a_quota_within_capacity_changes_it_and_deletes_it_after_confirmation(
    running_sandbox, cluster
):
    async def story(tool):
        _, created = await tool("hyperpod_create_team", quota("ml-a", 1))
        assert created["localQueue"] == "hyperpod-ns-ml-a-localqueue"
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        assert (teams["capacity"], teams["allocated"]) == ({INSTANCE_TYPE: 2}, {INSTANCE_TYPE: 1})
        change = {"clusterTag": TAG, "team": "ml-a", "allocations": [{"instanceType": INSTANCE_TYPE, "count": 2}]}
        _, plan = await tool("hyperpod_update_team", change)
        _, updated = await tool("hyperpod_update_team", {**change, "confirmationToken": plan["confirmationToken"]})
        assert updated["allocations"] == [{"instanceType": INSTANCE_TYPE, "count": 2}]
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        assert (teams["allocated"], teams["teams"][0]["status"]) == ({INSTANCE_TYPE: 2}, "Updated")
        _, plan = await tool("hyperpod_delete_team", {"clusterTag": TAG, "team": "ml-a"})
        assert plan["confirmationToken"]
        await tool(
            "hyperpod_delete_team",
            {"clusterTag": TAG, "team": "ml-a", "confirmationToken": plan["confirmationToken"]},
        )
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        return teams["teams"]

    remaining, calls, _ = converse(running_sandbox, story, token="sandbox-admin")
    assert remaining == []
    assert calls.count("hyperpod_delete_team") == 2


def test_a_quota_over_the_clusters_capacity_is_a_tool_error_saying_what_is_left(running_sandbox, cluster):
    async def conversation() -> str:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-admin")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:
            result = await client.call_tool("hyperpod_create_team", quota("ml-big", 3))
            assert result.is_error
            return result.content[0].text

    message = asyncio.run(conversation())
    assert "at most 2" in message and "Lower the count" in message, message


def test_an_agent_sets_the_scheduler_policy_then_changes_it_only_with_the_plans_token(running_sandbox, cluster):
    first = {"clusterTag": TAG, "priorityClasses": [{"name": "training", "weight": 50}]}
    changed = {**first, "priorityClasses": [{"name": "training", "weight": 50}, {"name": "inference", "weight": 90}]}

    async def story(tool):
        _, created = await tool("hyperpod_put_scheduler_policy", first)
        assert created["priorityClasses"] == [{"name": "training", "weight": 50}]
        _, plan = await tool("hyperpod_put_scheduler_policy", {**changed, "dryRun": True})
        _, updated = await tool(
            "hyperpod_put_scheduler_policy", {**changed, "confirmationToken": plan["confirmationToken"]}
        )
        assert updated["version"] == 2
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        _, plan = await tool("hyperpod_delete_scheduler_policy", {"clusterTag": TAG})
        await tool(
            "hyperpod_delete_scheduler_policy", {"clusterTag": TAG, "confirmationToken": plan["confirmationToken"]}
        )
        return teams["schedulerPolicy"]

    policy, _, _ = converse(running_sandbox, story, token="sandbox-admin")
    assert [p["name"] for p in policy["priorityClasses"]] == ["training", "inference"]
    assert (policy["status"], policy["fairShare"]) == ("Updated", True)


def settle(running_sandbox) -> None:
    """Let the operations earlier tests started (their teams' namespaces) end: one operation runs per cluster."""
    with running_sandbox.client("sandbox-viewer") as api:
        operations = api.get("/operations", params={"clusterTag": TAG}).json()["operations"]
    for operation in operations:
        running_sandbox.wait_terminal(operation["operationId"])


def test_an_agent_waits_for_a_new_teams_namespace_to_be_ready_and_prepares_it_again(running_sandbox, cluster):
    settle(running_sandbox)

    async def story(tool):
        _, created = await tool("hyperpod_create_team", quota("ml-ns", 1))
        assert created["namespaceReady"] is False
        _, operation = await tool("operation_wait", {"operationId": created["namespaceOperationId"]})
        while operation["status"] in ("PENDING", "RUNNING"):
            _, operation = await tool("operation_wait", {"operationId": operation["operationId"]})
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        _, again = await tool("hyperpod_prepare_team_namespace", {"clusterTag": TAG, "team": "ml-ns"})
        while again["status"] in ("PENDING", "RUNNING"):
            _, again = await tool("operation_wait", {"operationId": again["operationId"]})
        return operation, teams, again

    (operation, teams, again), _, _ = converse(running_sandbox, story, token="sandbox-admin")
    assert (operation["kind"], operation["status"]) == ("prepare_team_namespace", "SUCCEEDED"), operation.get("error")
    team = next(view for view in teams["teams"] if view["team"] == "ml-ns")
    assert (team["namespace"], team["namespaceReady"], team["namespaceMissing"]) == ("hyperpod-ns-ml-ns", True, [])
    assert (again["kind"], again["status"]) == ("prepare_team_namespace", "SUCCEEDED"), again.get("error")
