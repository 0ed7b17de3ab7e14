"""The eight agent conversations of issue 30, replayed through the MCP SDK client against the sandbox, with their
tool calls counted beside what the issue measured before workload waits, leads naming the next tool and plan ->
confirm flows landed.

A scripted agent follows the leads: where a result's lead sentence names the next call (an operation's or a
workload's wait, the pipeline's next stage, a plan's confirmation, a dry run's real call) it makes that call with
the arguments the lead gives, adding only what the lead cannot know (a zone, an instance type). Each conversation
asserts its goal; the counts are reported, not asserted. Run with `make bench`, or alone:
`PYTHONPATH=functions:. .venv/bin/pytest -q -s -n 0 tests/bench/test_agent_conversations.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.test_events import fail_node
from tests.inventory import stage1_inventory
from tests.mcp_conversation import Tool, converse

pytestmark = pytest.mark.bench

REGION = "us-west-2"
ZONE = "us-west-2c"
INSTANCE_TYPE = "ml.g6.4xlarge"
PIPELINE, WORKLOADS, NODES = "benchpipe", "benchwork", "benchnode"
MODEL = "Qwen/Qwen2.5-0.5B"
SERVE = "vllm serve Qwen/Qwen3-0.6B --max-model-len 1280 --tensor-parallel-size 1"
# What the issue measured per conversation, before its fixes.
MEASURED = {
    "cluster pipeline": "11-17",
    "instance groups": "15",
    "features": "6",
    "recipe job": "19",
    "deploy + chat": "10-13",
    "train -> deploy": "8",
    "troubleshoot": "15",
    "delete all": "18",
}
CALL = re.compile(r"\bcall (\w+)( again)? with (.*)$")
PAIR = re.compile(r"(\w+)=([^\s,]+?)(?=[,.]?(?:\s|$))")


class Agent:
    """Calls tools and follows the call a lead names, keeping the last call's arguments for a call made "again"."""

    def __init__(self, tool: Tool) -> None:
        self.tool = tool
        self.last: tuple[str, dict[str, Any]] = ("", {})

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        self.last = (name, arguments)
        return await self.tool(name, arguments)

    async def follow(self, lead: str, **extra: Any) -> tuple[str, dict[str, Any]]:
        """Make the call `lead` names, with its arguments (and `extra`)."""
        named = CALL.search(lead)
        assert named, f"the lead names no call: {lead}"
        name, again, rest = named.groups()
        arguments = dict(self.last[1]) if again else {}
        if re.match(r"(the same arguments and )?dryRun false", rest):
            arguments["dryRun"] = False
        arguments.update(PAIR.findall(rest))
        return await self.call(name, {**arguments, **extra})

    async def settle(self, lead: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Confirm a plan and wait as the leads say, until a lead names no wait, plan or confirmation."""
        while re.search(r"call (operation_wait|\w+_wait\w*)|confirmationToken=|dryRun false", lead):
            lead, body = await self.follow(lead)
        return lead, body


@pytest.fixture(scope="module")
def ledger() -> Iterator[dict[str, int]]:
    """Each conversation's tool calls, printed as a table once all have run."""
    counted: dict[str, int] = {}
    yield counted
    print("\n\nconversation        calls now   calls the issue measured")
    for name, measured in MEASURED.items():
        now = str(counted[name]) if name in counted else "-"
        print(f"{name:<20}{now:>9}   {measured:>24}")


@pytest.fixture(scope="module")
def workloads(running_sandbox) -> str:
    """A cluster with storage, the training and inference operators and three GPU nodes."""
    features = {name: {"enabled": True} for name in ("trainingOperator", "fsxCsiDriver", "inferenceOperator")}
    running_sandbox.build_cluster(WORKLOADS, region=REGION, instances=3, storage=True, features=features)
    return WORKLOADS


@pytest.fixture(scope="module")
def nodes(running_sandbox) -> str:
    """A cluster of one node with storage, its features off."""
    running_sandbox.build_cluster(NODES, region=REGION, storage=True)
    return NODES


def replay(running_sandbox, ledger: dict[str, int], name: str, story: Any, token: str = "sandbox-admin") -> Any:
    async def as_agent(tool: Tool) -> Any:
        return await story(Agent(tool))

    outcome, calls, _ = converse(running_sandbox, as_agent, token)
    ledger[name] = len(calls)
    print(f"\n{name}: {len(calls)} calls: {calls}")
    return outcome


def test_cluster_pipeline_stage_by_stage_to_a_ready_cluster(running_sandbox, ledger) -> None:
    async def story(agent: Agent) -> dict[str, Any]:
        await agent.call("cluster_list_all", {})
        lead, _ = await agent.settle(
            *await agent.call("cluster_create_eks", {"clusterTag": PIPELINE, "region": REGION})
        )
        lead, _ = await agent.settle(*await agent.follow(lead))  # cluster_configure_dependencies
        _, zones = await agent.call("cluster_get_availability_zones", {"region": REGION})
        assert ZONE in [zone["name"] for zone in zones["availabilityZones"]]
        _, offered = await agent.call("cluster_get_available_instances", {"region": REGION, "availabilityZone": ZONE})
        assert INSTANCE_TYPE in [offer["instanceType"] for offer in offered["instanceTypes"]]
        group = {"availabilityZone": ZONE, "instanceType": INSTANCE_TYPE, "instanceCount": 1}
        assert "hyperpod_create" in lead, lead
        lead, _ = await agent.settle(*await agent.follow(lead, **group))
        assert "s3_storage_create" in lead, lead
        lead, _ = await agent.settle(*await agent.follow(lead))
        assert "cluster_get_status" in lead, lead
        _, status = await agent.follow(lead)
        return status

    status = replay(running_sandbox, ledger, "cluster pipeline", story)
    assert status["ready"] is True, status
    assert (status["nodesReady"], status["gpusTotal"]) == (1, 1), status


def test_instance_groups_are_added_and_scaled(running_sandbox, ledger, nodes) -> None:
    async def story(agent: Agent) -> dict[str, Any]:
        await agent.call("cluster_get_instance_groups", {"clusterTag": nodes})
        await agent.call("region_get_quotas", {"region": REGION, "instanceType": INSTANCE_TYPE})
        group = {"instanceGroupName": "extra", "instanceType": INSTANCE_TYPE, "instanceCount": 1}
        plan = {"clusterTag": nodes, **group, "availabilityZone": ZONE, "dryRun": True}
        lead, _ = await agent.settle(*await agent.call("hyperpod_add_instance_group", plan))
        assert "hyperpod_list_nodes" in lead, lead
        await agent.follow(lead)
        scaled = {"clusterTag": nodes, "name": "extra", "instanceCount": 2}
        lead, _ = await agent.settle(*await agent.call("hyperpod_update_instance_group", scaled))
        assert "cluster_get_instance_groups" in lead, lead
        _, groups = await agent.follow(lead)
        return groups

    groups = replay(running_sandbox, ledger, "instance groups", story)
    (extra,) = [group for group in groups["instanceGroups"] if group["instanceGroupName"] == "extra"]
    assert (extra["currentCount"], extra["targetCount"]) == (2, 2), extra


def test_features_are_enabled_in_one_call(running_sandbox, ledger, nodes) -> None:
    async def story(agent: Agent) -> dict[str, Any]:
        await agent.call("hyperpod_get_advanced_features", {"clusterTag": nodes})
        features = {"tieredStorage": {"enabled": True, "configMode": "default"}, "trainingOperator": {"enabled": True}}
        lead, _ = await agent.settle(
            *await agent.call("hyperpod_update_advanced_features", {"clusterTag": nodes, **features})
        )
        assert "hyperpod_get_advanced_features" in lead, lead
        _, after = await agent.follow(lead)
        return after

    after = replay(running_sandbox, ledger, "features", story)
    assert after["features"]["tieredStorage"]["enabled"] is True, after
    assert after["features"]["trainingOperator"]["enabled"] is True, after


def recipe_job(name: str) -> dict[str, Any]:
    values = {"model": f"/s3/models/{MODEL}", "dataset": "alpaca_en_demo", "outputDir": f"/s3/out/{name}"}
    return {
        "clusterTag": WORKLOADS,
        "recipe": "llama-factory",
        "name": name,
        "instanceType": INSTANCE_TYPE,
        "values": values,
    }


def test_recipe_job_from_a_downloaded_model_to_its_logs(running_sandbox, ledger, workloads) -> None:
    async def story(agent: Agent) -> tuple[dict[str, Any], dict[str, Any]]:
        _, recipes = await agent.call("recipe_list_all", {})
        assert "llama-factory" in str(recipes)
        await agent.call("recipe_get", {"recipeName": "llama-factory"})
        lead, _ = await agent.settle(
            *await agent.call("model_download_enhanced", {"clusterTag": workloads, "repoId": MODEL})
        )
        assert "s3_storage_list_contents" in lead, lead
        _, contents = await agent.follow(lead, prefix=f"models/{MODEL}/")
        assert contents["objects"], contents
        lead, waited = await agent.settle(
            *await agent.call("job_submit_from_recipe", {**recipe_job("sft"), "dryRun": True})
        )
        assert "job_get_logs" in lead, lead
        _, logs = await agent.call("job_get_logs", {"clusterTag": workloads, "jobName": "sft", "tailLines": 20})
        return waited["job"], logs

    job, logs = replay(running_sandbox, ledger, "recipe job", story)
    assert job["phase"] == "Succeeded", job
    assert logs["lines"], logs


def test_deploy_a_model_server_and_chat_with_it(running_sandbox, ledger, workloads) -> None:
    async def story(agent: Agent) -> dict[str, Any]:
        server = {"clusterTag": workloads, "name": "chat"}
        deploy = {**server, "command": SERVE, "gpus": 1, "serviceType": "internal", "dryRun": True}
        lead, _ = await agent.settle(*await agent.call("inference_deploy_container", deploy))
        assert "inference_call_model" in lead, lead
        _, answer = await agent.call("inference_call_model", {**server, "prompt": "What is HyperPod?"})
        return answer

    answer = replay(running_sandbox, ledger, "deploy + chat", story)
    assert answer["object"] == "chat.completion", answer
    assert answer["choices"][0]["message"]["content"], answer


def test_train_then_deploy_the_jobs_output(running_sandbox, ledger, workloads) -> None:
    async def story(agent: Agent) -> tuple[dict[str, Any], dict[str, Any]]:
        lead, waited = await agent.settle(*await agent.call("job_submit_from_recipe", recipe_job("tuned")))
        assert waited["job"]["phase"] == "Succeeded", waited
        assert "inference_deploy_container" in lead, lead
        server = {"clusterTag": workloads, "name": "tuned"}
        deploy = {**server, "modelSource": {"job": "tuned"}, "command": "vllm serve --max-model-len 1280", "gpus": 1}
        lead, ready = await agent.settle(
            *await agent.call("inference_deploy_container", {**deploy, "serviceType": "internal"})
        )
        assert "inference_call_model" in lead, lead
        _, answer = await agent.call("inference_call_model", {**server, "prompt": "Who are you?"})
        return ready["deployment"], answer

    deployment, answer = replay(running_sandbox, ledger, "train -> deploy", story)
    assert deployment["status"] == "Ready" and "out/tuned" in str(deployment["modelSourceUri"]), deployment
    assert answer["object"] == "chat.completion", answer


def test_troubleshoot_an_unhealthy_node_by_replacing_it(running_sandbox, ledger, nodes) -> None:
    with running_sandbox.client() as api:
        victim = api.get(f"/clusters/{nodes}/nodes").json()["nodes"][0]["nodeId"]
    fail_node(running_sandbox, nodes, victim)

    async def story(agent: Agent) -> dict[str, Any]:
        lead, status = await agent.call("cluster_get_status", {"clusterTag": nodes})
        assert status["ready"] is False and victim in lead, lead
        _, listed = await agent.call("hyperpod_list_nodes", {"clusterTag": nodes})
        (sick,) = [node for node in listed["nodes"] if node["health"] != "Schedulable"]
        await agent.call("hyperpod_node_history", {"clusterTag": nodes, "nodeId": sick["nodeId"]})
        await agent.call("remediation_policy_get", {"clusterTag": nodes})
        lead, _ = await agent.settle(
            *await agent.call("hyperpod_node_replace", {"clusterTag": nodes, "nodeId": sick["nodeId"]})
        )
        assert "hyperpod_list_nodes" in lead, lead
        await agent.follow(lead)
        _, after = await agent.call("cluster_get_status", {"clusterTag": nodes})
        return after

    after = replay(running_sandbox, ledger, "troubleshoot", story)
    assert after["ready"] is True, after


def test_delete_all_clusters(running_sandbox, ledger, workloads, nodes) -> None:
    async def story(agent: Agent) -> tuple[list[str], list[str]]:
        _, listed = await agent.call("cluster_list_all", {})
        tags = [cluster["clusterTag"] for cluster in listed["clusters"]]
        for tag in tags:
            lead, _ = await agent.settle(*await agent.call("cluster_delete", {"clusterTag": tag}))
            assert "cluster_list_all" in lead, lead
        _, left = await agent.call("cluster_list_all", {})
        return tags, [cluster["clusterTag"] for cluster in left["clusters"]]

    deleted, left = replay(running_sandbox, ledger, "delete all", story)
    assert {workloads, nodes} <= set(deleted) and left == [], (deleted, left)
    assert all(stage1_inventory(tag)["vpcs"] == 0 for tag in deleted)
