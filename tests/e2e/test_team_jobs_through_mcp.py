"""Issue 32, part 1, as an agent runs it through the MCP tools in the sandbox: an admin gives a team a quota and the
cluster a scheduler policy; an operator submits a job and deploys a model server for the team with a priority; each
lands in hyperpod-ns-<team> with the labels HyperPod's Kueue integration reads, and is read and deleted by its name
alone; a team's second job over its quota is Queued with Kueue's reason until the first is deleted. An unknown team
or a priority outside the policy is a tool error that says what to change, and creates nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi
from tests.mcp_conversation import converse, waited

TAG = "mcpteamjob"
INSTANCE_TYPE = "ml.g6.4xlarge"
NAMESPACE = "hyperpod-ns-ml-a"
QUEUE, PRIORITY = "kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class"
JOB = {"clusterTag": TAG, "image": "train:1", "nodes": 1, "gpusPerNode": 1, "instanceType": INSTANCE_TYPE}
SERVE = "vllm serve Qwen/Qwen3-0.6B --max-model-len 1280 --tensor-parallel-size 1"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    features = {"taskGovernance": {"enabled": True}, "trainingOperator": {"enabled": True}}
    running_sandbox.build_cluster(TAG, instances=2, storage=True, features=features)

    async def setup(tool):
        quota = {"clusterTag": TAG, "team": "ml-a", "allocations": [{"instanceType": INSTANCE_TYPE, "count": 1}]}
        _, created = await tool("hyperpod_create_team", quota)
        assert (await waited(tool, created["namespaceOperationId"]))["status"] == "SUCCEEDED"
        classes = [{"name": "training", "weight": 50}, {"name": "inference", "weight": 90}]
        await tool("hyperpod_put_scheduler_policy", {"clusterTag": TAG, "priorityClasses": classes})

    converse(running_sandbox, setup, token="sandbox-admin")
    return TAG


def objects(running_sandbox, group: str, plural: str) -> list[dict[str, Any]]:
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    return store.list(group, "v1", plural)


def labels_of(obj: dict[str, Any], template: dict[str, Any]) -> list[tuple[str | None, str | None]]:
    return [
        (found["metadata"]["labels"].get(QUEUE), found["metadata"]["labels"].get(PRIORITY)) for found in (obj, template)
    ]


def test_an_agent_submits_a_teams_job_with_a_priority_into_the_teams_namespace_with_kueues_labels(
    running_sandbox, cluster
):
    async def story(tool):
        _, submitted = await tool("job_submit", {**JOB, "name": "team-job", "team": "ml-a", "priority": "training"})
        _, listed = await tool("job_list_all", {"clusterTag": TAG})
        _, plan = await tool("job_delete", {"clusterTag": TAG, "jobName": "team-job"})
        return submitted, listed, plan

    (submitted, listed, plan), _, _ = converse(running_sandbox, story)

    assert submitted["namespace"] == NAMESPACE
    [job] = [
        j
        for j in objects(running_sandbox, "sagemaker.amazonaws.com", "hyperpodpytorchjobs")
        if j["metadata"]["name"] == "team-job"
    ]
    assert job["metadata"]["namespace"] == NAMESPACE
    wanted = ("hyperpod-ns-ml-a-localqueue", "training-priority")
    assert labels_of(job, job["spec"]["replicaSpecs"][0]["template"]) == [wanted, wanted]
    assert "team-job" in [j["name"] for j in listed["jobs"]]
    assert [a["name"] for a in plan["actions"]] == [f"{NAMESPACE}/team-job"]


def test_an_agent_deploys_a_teams_model_server_into_the_teams_namespace_with_kueues_labels(running_sandbox, cluster):
    async def story(tool):
        request = {"clusterTag": TAG, "name": "team-qwen", "command": SERVE, "gpus": 1, "team": "ml-a"}
        _, deployed = await tool("inference_deploy_container", {**request, "priority": "inference"})
        _, detail = await tool("inference_get_deployment", {"clusterTag": TAG, "name": "team-qwen"})
        return deployed, detail

    (deployed, detail), _, _ = converse(running_sandbox, story)

    assert deployed["namespace"] == detail["namespace"] == NAMESPACE
    [server] = [d for d in objects(running_sandbox, "apps", "deployments") if d["metadata"]["name"] == "team-qwen"]
    wanted = ("hyperpod-ns-ml-a-localqueue", "inference-priority")
    assert labels_of(server, server["spec"]["template"]) == [wanted, wanted]


def test_a_teams_model_server_may_name_a_token_secret_of_the_teams_namespace(running_sandbox, cluster):
    """The namespace's preparation gives the jobs role the Secret reader there, so the Secret's owner can be checked."""
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    metadata = {"name": "hf", "namespace": NAMESPACE, "labels": {"app.kubernetes.io/managed-by": "instantstart"}}
    store.put({"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "data": {"token": "eA=="}})

    async def story(tool):
        request = {"clusterTag": TAG, "name": "team-tokened", "command": SERVE, "gpus": 1, "team": "ml-a"}
        _, deployed = await tool("inference_deploy_container", {**request, "huggingFaceTokenSecret": "hf"})
        return deployed

    deployed, _, _ = converse(running_sandbox, story)

    assert deployed["namespace"] == NAMESPACE
    [server] = [d for d in objects(running_sandbox, "apps", "deployments") if d["metadata"]["name"] == "team-tokened"]
    env = server["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "hf", "key": "token"} in [e.get("valueFrom", {}).get("secretKeyRef") for e in env]


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"team": "ml-z"}, "Team 'ml-z' has no compute quota on 'mcpteamjob' (teams: ml-a)"),
        ({"team": "ml-a", "priority": "urgent"}, "(classes: training, inference); set `priority` to one of them"),
    ],
)
def test_an_unknown_team_or_priority_is_a_tool_error_that_says_what_to_change_and_creates_nothing(
    running_sandbox, cluster, arguments, said
):
    async def conversation() -> str:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:
            result = await client.call_tool("job_submit", {**JOB, "name": "refused-job", **arguments})
            assert result.is_error
            return result.content[0].text

    message = asyncio.run(conversation())
    assert said in message, message
    jobs = objects(running_sandbox, "sagemaker.amazonaws.com", "hyperpodpytorchjobs")
    assert "refused-job" not in [job["metadata"]["name"] for job in jobs]


def test_a_teams_job_over_its_quota_is_queued_with_kueues_reason_until_the_first_is_deleted(running_sandbox, cluster):
    running_sandbox.sandbox.training.seconds_per_line = 5  # the first job runs for the whole test
    job = {**JOB, "team": "ml-q", "priority": "training"}

    async def story(tool):
        # DontLend: the team neither lends nor borrows, so ml-a's idle node cannot take its second job.
        allocations = [{"instanceType": INSTANCE_TYPE, "count": 1}]
        quota = {"clusterTag": TAG, "team": "ml-q", "allocations": allocations, "sharing": "DontLend"}
        _, created = await tool("hyperpod_create_team", quota)
        assert (await waited(tool, created["namespaceOperationId"]))["status"] == "SUCCEEDED"
        await tool("job_submit", {**job, "name": "q-first"})
        await tool("job_submit", {**job, "name": "q-second"})
        for _ in range(200):
            _, waiting = await tool("job_get_status", {"clusterTag": TAG, "jobName": "q-second"})
            if waiting["phase"] == "Queued" and "insufficient unused quota" in (waiting.get("waitingReason") or ""):
                break
            await asyncio.sleep(0.05)
        _, plan = await tool("job_delete", {"clusterTag": TAG, "jobName": "q-first"})
        await tool(
            "job_delete", {"clusterTag": TAG, "jobName": "q-first", "confirmationToken": plan["confirmationToken"]}
        )
        for _ in range(200):
            _, admitted = await tool("job_get_status", {"clusterTag": TAG, "jobName": "q-second"})
            if admitted["phase"] != "Queued":
                break
            await asyncio.sleep(0.05)
        return waiting, admitted

    try:
        (waiting, admitted), _, _ = converse(running_sandbox, story, token="sandbox-admin")
    finally:
        running_sandbox.sandbox.training.seconds_per_line = 0.02
    assert (waiting["phase"], waiting["namespace"]) == ("Queued", "hyperpod-ns-ml-q")
    assert "insufficient unused quota for nvidia.com/gpu" in waiting["waitingReason"]
    assert admitted["phase"] != "Queued"
