"""Workloads waited for through the MCP tools in the sandbox (issue 30, finding 1): a training job, a model server and
a managed endpoint are each created, and their creating result names the wait; one wait call, with progress
notifications, returns once the job has ended or the server or endpoint is ready — where an agent used to read the
status back to back (7 job reads, 4 service lists, 4 endpoint reads)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.mcp_conversation import Tool, converse

TAG = "waits"
REGION = "us-west-2"
INSTANCE_TYPE = "ml.g6.4xlarge"
JOB = {"image": "train:1", "nodes": 1, "gpusPerNode": 1, "instanceType": INSTANCE_TYPE}
SERVE = "vllm serve Qwen/Qwen3-0.6B --max-model-len 1280 --tensor-parallel-size 1"
MODEL = {"source": {"huggingFace": {"modelId": "Qwen/Qwen3-0.6B"}}, "image": "vllm/vllm-openai:v0.10.0", "gpus": 1}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    features = {name: {"enabled": True} for name in ("trainingOperator", "fsxCsiDriver", "inferenceOperator")}
    running_sandbox.build_cluster(TAG, region=REGION, instances=2, storage=True, features=features)
    return TAG


@pytest.fixture
def seconds_of_work(running_sandbox) -> Iterator[None]:
    """A job's steps and a model's load take long enough that a wait has something to wait for."""
    sandbox = running_sandbox.sandbox
    before = sandbox.training.seconds_per_line, sandbox.serving.seconds_to_load, sandbox.inference.seconds_to_load
    sandbox.training.seconds_per_line, sandbox.serving.seconds_to_load, sandbox.inference.seconds_to_load = 0.03, 1, 1
    yield
    sandbox.training.seconds_per_line, sandbox.serving.seconds_to_load, sandbox.inference.seconds_to_load = before


def test_a_submitted_job_is_waited_for_to_its_end_in_one_call(running_sandbox, cluster, seconds_of_work) -> None:
    async def story(tool: Tool) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
        submitted, _ = await tool("job_submit", {"clusterTag": TAG, "name": "waited", **JOB})
        said, waited = await tool("job_wait", {"clusterTag": TAG, "jobName": "waited"})
        _, logs = await tool("job_get_logs", {"clusterTag": TAG, "jobName": "waited", "tailLines": 5})
        return submitted, said, waited, logs

    (submitted, said, waited, logs), calls, progress = converse(running_sandbox, story)

    assert "call job_wait with clusterTag=waits, jobName=waited" in submitted, submitted
    assert "nothing to wait on" not in submitted
    assert (waited["done"], waited["job"]["phase"]) == (True, "Succeeded"), waited
    assert "job_get_logs" in said, said
    assert calls == ["job_submit", "job_wait", "job_get_logs"]
    # Issue 30, finding 3: a finished job keeps its pods (cleanPodPolicy None by default), so its log stays readable.
    assert len(logs["lines"]) == 5 and logs["note"] is None, logs
    assert progress and all(message.startswith("job waited ") for message in progress), progress


def test_a_model_server_is_waited_for_until_ready_in_one_call(running_sandbox, cluster, seconds_of_work) -> None:
    async def story(tool: Tool) -> tuple[str, dict[str, Any], dict[str, Any]]:
        server = {"clusterTag": TAG, "name": "waited"}
        deployed, _ = await tool(
            "inference_deploy_container", {**server, "command": SERVE, "gpus": 1, "serviceType": "internal"}
        )
        _, waited = await tool("inference_wait_deployment", server)
        _, answer = await tool("inference_call_model", {**server, "prompt": "What is HyperPod?"})
        return deployed, waited, answer

    (deployed, waited, answer), calls, progress = converse(running_sandbox, story)

    assert "call inference_wait_deployment with clusterTag=waits, name=waited" in deployed, deployed
    assert (waited["done"], waited["deployment"]["status"]) == (True, "Ready"), waited
    assert answer["object"] == "chat.completion"
    assert calls == ["inference_deploy_container", "inference_wait_deployment", "inference_call_model"]
    assert progress and all(message.startswith("deployment waited ") for message in progress), progress


def test_an_endpoint_is_waited_for_until_deployed_in_one_call(running_sandbox, cluster, seconds_of_work) -> None:
    async def story(tool: Tool) -> tuple[str, dict[str, Any], dict[str, Any]]:
        endpoint = {"clusterTag": TAG, "name": "waited"}
        created, _ = await tool(
            "inference_endpoint_create", {**endpoint, "instanceType": INSTANCE_TYPE, "model": MODEL}
        )
        _, waited = await tool("inference_endpoint_wait", endpoint)
        _, answer = await tool("inference_endpoint_call", {**endpoint, "prompt": "What is HyperPod?"})
        return created, waited, answer

    (created, waited, answer), calls, _ = converse(running_sandbox, story)

    assert "call inference_endpoint_wait with clusterTag=waits, name=waited" in created, created
    assert (waited["done"], waited["endpoint"]["state"]) == (True, "DeploymentComplete"), waited
    assert answer["object"] == "chat.completion"
    assert calls == ["inference_endpoint_create", "inference_endpoint_wait", "inference_endpoint_call"]


def test_a_wait_that_runs_out_says_the_workload_is_still_on_its_way_and_to_call_again(
    running_sandbox, cluster, seconds_of_work
) -> None:
    running_sandbox.sandbox.serving.seconds_to_load = 30

    async def story(tool: Tool) -> tuple[str, dict[str, Any]]:
        server = {"clusterTag": TAG, "name": "slow"}
        await tool("inference_deploy_container", {**server, "command": SERVE, "gpus": 1, "serviceType": "internal"})
        return await tool("inference_wait_deployment", {**server, "timeoutSeconds": 1})

    (said, waited), _, _ = converse(running_sandbox, story)

    assert (waited["done"], waited["deployment"]["status"]) == (False, "Loading"), waited
    assert said.startswith("The deployment slow is still Loading after 1 s — call inference_wait_deployment again")
