"""Issue 32, part 1, for model servers, as an agent runs it through the MCP tools in the sandbox: a team with quota
for one GPU serves one model; its second model server is Queued with Kueue's reason (its pod waits, gated, for its
Workload), the wait and the read say why, the teams view counts it; deleting the first server admits the second,
which then loads and is Ready."""

from __future__ import annotations

from typing import Any

import pytest

from tests.mcp_conversation import converse, waited

TAG = "mcpteamserve"
INSTANCE_TYPE = "ml.g6.4xlarge"  # one GPU
TEAM = "ml-s"
SERVE = "vllm serve Qwen/Qwen3-0.6B --max-model-len 1280 --tensor-parallel-size 1"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, instances=2, storage=True, features={"taskGovernance": {"enabled": True}})

    async def setup(tool):
        # DontLend: the team neither lends nor borrows, so the cluster's second node cannot take its second server.
        allocations = [{"instanceType": INSTANCE_TYPE, "count": 1}]
        quota = {"clusterTag": TAG, "team": TEAM, "allocations": allocations, "sharing": "DontLend"}
        _, created = await tool("hyperpod_create_team", quota)
        assert (await waited(tool, created["namespaceOperationId"]))["status"] == "SUCCEEDED"

    converse(running_sandbox, setup, token="sandbox-admin")
    return TAG


async def wait_until(tool, name: str, status: str) -> dict[str, Any]:
    for _ in range(20):
        _, waited_for = await tool("inference_wait_deployment", {"clusterTag": TAG, "name": name, "timeoutSeconds": 2})
        if waited_for["deployment"]["status"] == status:
            return waited_for
    raise AssertionError(f"{name} never {status}: {waited_for}")


def test_a_teams_second_model_server_over_its_quota_is_queued_until_the_first_is_deleted(running_sandbox, cluster):
    server = {"clusterTag": TAG, "command": SERVE, "gpus": 1, "team": TEAM}

    async def story(tool):
        await tool("inference_deploy_container", {**server, "name": "s-first"})
        await wait_until(tool, "s-first", "Ready")
        await tool("inference_deploy_container", {**server, "name": "s-second"})
        wait_lead, queued = await tool(
            "inference_wait_deployment", {"clusterTag": TAG, "name": "s-second", "timeoutSeconds": 1}
        )
        read_lead, detail = await tool("inference_get_deployment", {"clusterTag": TAG, "name": "s-second"})
        _, listed = await tool("inference_list_deployments", {"clusterTag": TAG})
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        _, plan = await tool("inference_delete_deployment", {"clusterTag": TAG, "name": "s-first"})
        token = plan["confirmationToken"]
        await tool("inference_delete_deployment", {"clusterTag": TAG, "name": "s-first", "confirmationToken": token})
        ready = await wait_until(tool, "s-second", "Ready")
        return wait_lead, queued, read_lead, detail, listed, teams, ready

    (wait_lead, queued, read_lead, detail, listed, teams, ready), _, _ = converse(running_sandbox, story)

    reason = (
        "Pending: couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor "
        f"{INSTANCE_TYPE}, 1 more needed"
    )
    assert not queued["done"]
    assert (queued["deployment"]["status"], queued["deployment"]["waitingReason"]) == ("Queued", reason)
    assert wait_lead.startswith(f"The deployment s-second is still Queued after 1 s ({reason}) — call ")
    assert read_lead == f"inference_get_deployment: s-second is Queued: {reason}"
    assert [(pod["queued"], pod.get("node")) for pod in detail["pods"]] == [(True, None)]
    by_name = {d["name"]: d for d in listed["deployments"]}
    assert (by_name["s-first"]["status"], by_name["s-second"]["status"]) == ("Ready", "Queued")
    [team] = [t for t in teams["teams"] if t["team"] == TEAM]
    assert [(work["kind"], work["message"]) for work in team["queued"]] == [("Pod", reason.removeprefix("Pending: "))]
    assert ready["done"] and ready["deployment"]["waitingReason"] is None
