"""Managed inference endpoints through the API in the sandbox: create → DeploymentComplete → the chat answers →
delete (DeletionPending … gone, workers removed); train → deploy by job name; refusals that say what to change; and
the same story through the MCP tools alone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi

TAG = "serve"
REGION = "us-west-2"
INSTANCE_TYPE = "ml.g6.4xlarge"
MODEL = {"source": {"huggingFace": {"modelId": "Qwen/Qwen3-0.6B"}}, "image": "vllm/vllm-openai:v0.10.0", "gpus": 1}
CHAT = {"messages": [{"role": "user", "content": "What is HyperPod?"}], "max_tokens": 32}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    # The inference operator needs the FSx CSI driver (a feature dependency).
    features = {name: {"enabled": True} for name in ("trainingOperator", "fsxCsiDriver", "inferenceOperator")}
    running_sandbox.build_cluster(TAG, region=REGION, storage=True, features=features)
    return TAG


@pytest.fixture
def load_seconds(running_sandbox) -> Iterator[Callable[[float], None]]:
    """Lengthen the simulated model load (and deletion) for one test."""
    inference = running_sandbox.sandbox.inference
    before = inference.seconds_to_load

    def set_seconds(seconds: float) -> None:
        inference.seconds_to_load = seconds

    yield set_seconds
    inference.seconds_to_load = before


def until(api: httpx.Client, name: str, done: Callable[[httpx.Response], bool], limit: float = 30) -> httpx.Response:
    deadline = time.monotonic() + limit
    while True:
        response = api.get(f"/clusters/{TAG}/endpoints/{name}")
        if done(response) or time.monotonic() > deadline:
            return response
        time.sleep(0.02)


def state_is(*states: str) -> Callable[[httpx.Response], bool]:
    return lambda response: response.status_code == 200 and response.json()["state"] in states


def test_an_endpoint_deploys_answers_a_chat_and_is_deleted(running_sandbox, cluster, operator, load_seconds) -> None:
    load_seconds(0.3)
    created = operator.post(
        f"/clusters/{TAG}/endpoints", json={"name": "qwen", "instanceType": INSTANCE_TYPE, "model": MODEL}
    )
    assert created.status_code == 201, created.text
    assert created.json()["state"] in ("DeploymentPending", "DeploymentInProgress")
    assert created.json()["sageMakerEndpointName"] == f"is-{TAG}-qwen"

    loading = until(operator, "qwen", state_is("DeploymentInProgress", "DeploymentComplete")).json()
    early = operator.post(f"/clusters/{TAG}/endpoints/qwen/chat", json=CHAT)
    if loading["state"] == "DeploymentInProgress":
        assert early.status_code == 409 and early.json()["code"] == "EndpointNotReady"

    ready = until(operator, "qwen", state_is("DeploymentComplete")).json()
    assert ready["readyReplicas"] == 1
    assert [pod["phase"] for pod in ready["pods"]] == ["Running"]
    assert ready["conditions"][0]["type"] == "Ready"

    chat = operator.post(f"/clusters/{TAG}/endpoints/qwen/chat", json=CHAT)
    assert chat.status_code == 200, chat.text
    answer = chat.json()
    assert answer["object"] == "chat.completion"
    assert "sandbox model" in answer["choices"][0]["message"]["content"]
    assert "What is HyperPod?" in answer["choices"][0]["message"]["content"]

    listed = operator.get(f"/clusters/{TAG}/endpoints").json()["endpoints"]
    assert [(e["name"], e["kind"], e["state"]) for e in listed] == [
        ("qwen", "InferenceEndpointConfig", "DeploymentComplete")
    ]

    plan = operator.delete(f"/clusters/{TAG}/endpoints/qwen").json()
    assert plan["dryRun"] is True and plan["actions"][0]["resource"] == "InferenceEndpointConfig"
    assert operator.get(f"/clusters/{TAG}/endpoints/qwen").json()["state"] == "DeploymentComplete"
    deleted = operator.delete(
        f"/clusters/{TAG}/endpoints/qwen", params={"confirmationToken": plan["confirmationToken"]}
    )
    assert deleted.status_code == 200 and deleted.json()["dryRun"] is False

    deleting = until(operator, "qwen", lambda r: r.status_code == 404 or r.json()["state"].startswith("Deletion"))
    if deleting.status_code == 200:
        assert deleting.json()["state"] in ("DeletionPending", "DeletionInProgress")
    gone = until(operator, "qwen", lambda r: r.status_code == 404)
    assert gone.status_code == 404 and gone.json()["code"] == "EndpointNotFound"
    pods = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}").list(
        "", "v1", "pods", None, "instantstart.aws/endpoint=qwen"
    )
    assert pods == []
    after = operator.post(f"/clusters/{TAG}/endpoints/qwen/chat", json=CHAT)
    assert after.status_code == 404


def test_a_finished_training_job_deploys_by_its_name(running_sandbox, cluster, operator) -> None:
    job = {
        "name": "sft",
        "image": "train:1",
        "gpusPerNode": 1,
        "instanceType": INSTANCE_TYPE,
        "args": ["train.py", "--output_dir=/s3/outputs/sft"],
    }
    assert operator.post(f"/clusters/{TAG}/jobs", json=job).status_code == 201
    deadline = time.monotonic() + 30
    while operator.get(f"/clusters/{TAG}/jobs/sft").json()["phase"] != "Succeeded" and time.monotonic() < deadline:
        time.sleep(0.05)

    body = {"name": "sft-model", "instanceType": INSTANCE_TYPE, "model": {**MODEL, "source": {"job": "sft"}}}
    created = operator.post(f"/clusters/{TAG}/endpoints", json=body)

    assert created.status_code == 201, created.text
    bucket = operator.get(f"/clusters/{TAG}").json()["storageBucket"]
    assert created.json()["model"] == f"s3://{bucket}/outputs/sft"
    assert until(operator, "sft-model", state_is("DeploymentComplete")).json()["state"] == "DeploymentComplete"


def test_a_teams_finished_job_deploys_by_its_name_from_the_teams_namespace(running_sandbox, cluster, operator) -> None:
    """A team's job (in hyperpod-ns-<team>, as task governance places it; the sandbox's operator runs it) is found by
    its name alone."""
    container = {"name": "pytorch", "image": "train:1", "args": ["train.py", "--output_dir=/s3/outputs/team-sft"]}
    job = {
        "apiVersion": "sagemaker.amazonaws.com/v1",
        "kind": "HyperPodPyTorchJob",
        "metadata": {"name": "team-sft", "namespace": "hyperpod-ns-ml-a"},
        "spec": {"replicaSpecs": [{"name": "pods", "replicas": 1, "template": {"spec": {"containers": [container]}}}]},
    }
    running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}").put(job)
    deadline = time.monotonic() + 30
    while operator.get(f"/clusters/{TAG}/jobs/team-sft").json()["phase"] != "Succeeded":
        assert time.monotonic() < deadline
        time.sleep(0.05)

    body = {"name": "team-model", "instanceType": INSTANCE_TYPE, "model": {**MODEL, "source": {"job": "team-sft"}}}
    created = operator.post(f"/clusters/{TAG}/endpoints", params={"dryRun": "true"}, json=body)

    assert created.status_code == 200, created.text
    bucket = operator.get(f"/clusters/{TAG}").json()["storageBucket"]
    source = created.json()["manifest"]["spec"]["modelSourceConfig"]
    assert (source["s3Storage"]["bucketName"], source["modelLocation"]) == (bucket, "outputs/team-sft")


def test_a_dry_run_returns_the_manifest_of_either_kind(cluster, operator) -> None:
    body = {
        "name": "ds",
        "instanceType": INSTANCE_TYPE,
        "jumpStart": {"modelId": "deepseek-llm-r1-distill-qwen-1-5b", "acceptEula": True},
        "kvCache": {"l2": {"backend": "redis", "localUrl": "redis://cache:6379"}},
        "routing": {"strategy": "session"},
        "autoscaling": {"minReplicas": 1, "maxReplicas": 3},
    }
    planned = operator.post(f"/clusters/{TAG}/endpoints", params={"dryRun": "true"}, json=body)

    assert planned.status_code == 200, planned.text
    manifest = planned.json()["manifest"]
    assert (planned.json()["kind"], manifest["kind"]) == ("JumpStartModel", "JumpStartModel")
    assert manifest["spec"]["intelligentRoutingSpec"] == {"enabled": True, "routingStrategy": "session"}
    assert operator.get(f"/clusters/{TAG}/endpoints/ds").status_code == 404


@pytest.mark.parametrize(
    ("fields", "status", "says"),
    [
        ({"kvCache": {"l2": {"backend": "tieredstorage"}}}, 400, "'tieredStorage' feature"),
        ({"kvCache": {"l2": {"backend": "redis"}}}, 400, "localUrl"),
        ({"model": {**MODEL, "gpus": 2}}, 400, "at most 1"),
        ({"instanceType": "ml.p5.48xlarge"}, 400, INSTANCE_TYPE),
        ({"model": {**MODEL, "source": {"job": "nope"}}}, 400, "no training job named 'nope'"),
        ({"jumpStart": {"modelId": "m"}}, 400, "exactly one of `model`"),
    ],
)
def test_refusals_say_what_to_change(cluster, operator, fields: dict[str, Any], status: int, says: str) -> None:
    body = {"name": "bad", "instanceType": INSTANCE_TYPE, "model": MODEL, **fields}
    refused = operator.post(f"/clusters/{TAG}/endpoints", json=body)
    assert refused.status_code == status, refused.text
    assert says in refused.json()["message"]


def test_changing_routing_after_creation_is_refused(cluster, operator) -> None:
    body = {"name": "routed", "instanceType": INSTANCE_TYPE, "model": MODEL, "routing": {"strategy": "prefixaware"}}
    assert operator.post(f"/clusters/{TAG}/endpoints", json=body).status_code == 201

    again = operator.post(f"/clusters/{TAG}/endpoints", json={**body, "routing": {"strategy": "kvaware"}})

    assert again.status_code == 409
    assert again.json()["code"] == "RoutingImmutable"
    assert "immutable" in again.json()["message"] and "delete the endpoint" in again.json()["message"]
    same = operator.post(f"/clusters/{TAG}/endpoints", json=body)
    assert (same.status_code, same.json()["code"]) == (409, "EndpointNameInUse")


def test_a_viewer_reads_but_neither_creates_nor_calls(cluster, running_sandbox) -> None:
    with running_sandbox.client("sandbox-viewer") as viewer:
        assert viewer.get(f"/clusters/{TAG}/endpoints").status_code == 200
        body = {"name": "v", "instanceType": INSTANCE_TYPE, "model": MODEL}
        assert viewer.post(f"/clusters/{TAG}/endpoints", json=body).status_code == 403
        assert viewer.post(f"/clusters/{TAG}/endpoints/qwen/chat", json=CHAT).status_code == 403


def test_through_the_tools_alone_an_endpoint_is_created_called_and_deleted(running_sandbox, cluster) -> None:
    async def conversation() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                return dict(result.structured_content)

            endpoint = {"clusterTag": TAG, "name": "agent"}
            await tool("inference_endpoint_create", {**endpoint, "instanceType": INSTANCE_TYPE, "model": MODEL})
            status = await tool("inference_endpoint_get", endpoint)
            while status["state"] != "DeploymentComplete":
                await asyncio.sleep(0.05)
                status = await tool("inference_endpoint_get", endpoint)
            answer = await tool("inference_endpoint_call", {**endpoint, **CHAT})
            plan = await tool("inference_endpoint_delete", endpoint)
            deleted = await tool(
                "inference_endpoint_delete", {**endpoint, "confirmationToken": plan["confirmationToken"]}
            )
            return status, answer, deleted

    status, answer, deleted = asyncio.run(conversation())

    assert status["sageMakerEndpointName"] == f"is-{TAG}-agent"
    assert "sandbox model" in answer["choices"][0]["message"]["content"]
    assert deleted["dryRun"] is False


def test_the_list_pages_through_both_kinds_without_gaps_or_repeats(cluster, operator) -> None:
    for name in ("page-a", "page-b"):
        body = {"name": name, "instanceType": INSTANCE_TYPE, "model": MODEL}
        assert operator.post(f"/clusters/{TAG}/endpoints", json=body).status_code == 201
    jumpstart = {"name": "page-c", "instanceType": INSTANCE_TYPE, "jumpStart": {"modelId": "m"}}
    assert operator.post(f"/clusters/{TAG}/endpoints", json=jumpstart).status_code == 201

    names: list[str] = []
    token = None
    while True:
        params = {"limit": 1, **({"continue": token} if token else {})}
        page = operator.get(f"/clusters/{TAG}/endpoints", params=params).json()
        assert len(page["endpoints"]) <= 1
        names += [endpoint["name"] for endpoint in page["endpoints"]]
        token = page.get("continue")
        if not token:
            break

    assert len(names) == len(set(names))
    assert {"page-a", "page-b", "page-c"} <= set(names)
    assert names.index("page-c") > max(names.index("page-a"), names.index("page-b"))
    refused = operator.get(f"/clusters/{TAG}/endpoints", params={"continue": "not-a-token"})
    assert refused.status_code == 400 and "continue token" in refused.json()["message"]
