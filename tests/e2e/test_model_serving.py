"""Self-managed model servers in the sandbox: the seed's conversation through the MCP tools alone (deploy vLLM with
one GPU as cluster-internal, wait until ready, call it, get a chat completion); refusals that ask for the GPU count;
the model pool (rebinding a worker relabels its pod and keeps its uid; scaling in never removes a bound worker);
train → deploy; a token Secret that is not the control plane's refused; scaling to zero and delete, each with a plan
and its token."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi

TAG = "serve"
INSTANCE_TYPE = "ml.g6.4xlarge"
SEED_COMMAND = "vllm serve Qwen/Qwen3-0.6B --max-model-len 1280 --tensor-parallel-size 1"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, instances=2, storage=True, features={"trainingOperator": {"enabled": True}})
    return TAG


def ready(api: httpx.Client, name: str, limit: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while True:
        detail = api.get(f"/clusters/{TAG}/deployments/{name}").json()
        if detail.get("status") == "Ready" or time.monotonic() > deadline:
            return detail
        time.sleep(0.05)


def test_through_the_tools_alone_a_model_is_deployed_waited_for_and_called(running_sandbox, cluster) -> None:
    async def conversation() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                return dict(result.structured_content)

            deployed = await tool(
                "inference_deploy_container",
                {"clusterTag": TAG, "name": "qwen", "command": SEED_COMMAND, "gpus": 1, "serviceType": "internal"},
            )
            services = await tool("inference_list_services", {"clusterTag": TAG})
            while not any(s["name"] == "qwen" and s["ready"] for s in services["services"]):
                await asyncio.sleep(0.05)
                services = await tool("inference_list_services", {"clusterTag": TAG})
            answer = await tool(
                "inference_call_model", {"clusterTag": TAG, "name": "qwen", "prompt": "What is HyperPod?"}
            )
            return deployed, services, answer

    deployed, services, answer = asyncio.run(conversation())

    assert (deployed["engine"], deployed["model"], deployed["image"]) == (
        "vllm",
        "Qwen/Qwen3-0.6B",
        "vllm/vllm-openai:latest",
    )
    assert (deployed["gpus"], deployed["port"], deployed["serviceType"]) == (1, 8000, "internal")
    service = next(s for s in services["services"] if s["name"] == "qwen")
    assert service["url"] == "http://qwen.default.svc.cluster.local:8000" and service["type"] == "internal"
    assert answer["object"] == "chat.completion"
    assert answer["model"] == "Qwen/Qwen3-0.6B"
    content = answer["choices"][0]["message"]["content"]
    assert "sandbox" in content and "What is HyperPod?" in content


def test_without_a_gpu_count_or_with_fewer_gpus_than_tensor_parallel_the_deploy_is_refused_and_asks_for_it(
    running_sandbox, cluster, operator
) -> None:
    missing = operator.post(f"/clusters/{TAG}/deployments", json={"name": "nogpu", "command": SEED_COMMAND})
    too_few = operator.post(
        f"/clusters/{TAG}/deployments",
        json={"name": "tp", "command": "vllm serve Qwen/Qwen3-0.6B --tensor-parallel-size 4", "gpus": 1},
    )

    for refused in (missing, too_few):
        assert refused.status_code == 400, refused.text
        assert "How many GPUs" in refused.json()["message"]
    assert "tensor-parallel size 4" in too_few.json()["message"]
    assert operator.get(f"/clusters/{TAG}/deployments/tp").status_code == 404


def test_rebinding_a_pool_worker_changes_its_label_and_keeps_its_pod(running_sandbox, cluster, operator) -> None:
    created = operator.post(
        f"/clusters/{TAG}/deployments",
        json={"name": "pool", "command": "vllm serve Qwen/Qwen3-0.6B", "gpus": 1, "replicas": 2, "serviceType": "pool"},
    )
    assert created.status_code == 201, created.text
    ready(operator, "pool")
    workers = operator.get(f"/clusters/{TAG}/model-pool").json()["workers"]
    worker = next(w for w in workers if w["model"] == "pool")
    assert worker["service"] is None

    bound = operator.post(
        f"/clusters/{TAG}/model-pool", json={"action": "bind", "worker": worker["pod"], "service": "chat-a"}
    )
    rebound = operator.post(
        f"/clusters/{TAG}/model-pool", json={"action": "bind", "worker": worker["pod"], "service": "chat-b"}
    )
    answer = operator.post(f"/clusters/{TAG}/services/chat-b/chat", json={"prompt": "hi"})
    shrink = operator.patch(f"/clusters/{TAG}/deployments/pool", json={"replicas": 0})
    scale_in = operator.patch(f"/clusters/{TAG}/deployments/pool", json={"replicas": 1})
    after = operator.get(f"/clusters/{TAG}/deployments/pool").json()

    assert bound.status_code == 200 and rebound.status_code == 200, (bound.text, rebound.text)
    assert (bound.json()["worker"]["service"], rebound.json()["worker"]["service"]) == ("chat-a", "chat-b")
    assert bound.json()["worker"]["uid"] == rebound.json()["worker"]["uid"] == worker["uid"]
    assert answer.status_code == 200 and "sandbox" in answer.json()["choices"][0]["message"]["content"]
    assert shrink.status_code == 400 and worker["pod"] in shrink.json()["message"]
    assert scale_in.status_code == 200 and scale_in.json()["changes"] == {"replicas": "updated"}
    assert [(pod["name"], pod["uid"], pod["service"]) for pod in after["pods"]] == [
        (worker["pod"], worker["uid"], "chat-b")
    ]
    unbound = operator.post(f"/clusters/{TAG}/model-pool", json={"action": "unbind", "worker": worker["pod"]})
    assert unbound.json()["worker"]["service"] is None and unbound.json()["worker"]["uid"] == worker["uid"]


def test_a_finished_training_jobs_output_is_deployed_in_one_request(running_sandbox, cluster, operator) -> None:
    job = {
        "name": "tuned",
        "image": "train:1",
        "instanceType": INSTANCE_TYPE,
        "args": ["--output_dir=/s3/outputs/tuned"],
        "runPolicy": {"cleanPodPolicy": "None"},
    }
    assert operator.post(f"/clusters/{TAG}/jobs", json=job).status_code == 201
    early = operator.post(
        f"/clusters/{TAG}/deployments",
        json={"name": "early", "command": "vllm serve", "gpus": 1, "modelSource": {"job": "tuned"}},
    )
    deadline = time.monotonic() + 30
    while operator.get(f"/clusters/{TAG}/jobs/tuned").json()["phase"] != "Succeeded" and time.monotonic() < deadline:
        time.sleep(0.05)

    served = operator.post(
        f"/clusters/{TAG}/deployments",
        json={
            "name": "tuned",
            "command": "vllm serve --max-model-len 1280",
            "gpus": 1,
            "modelSource": {"job": "tuned"},
        },
    )

    assert early.status_code == 400 and "Succeeded" in early.json()["message"]
    assert served.status_code == 201, served.text
    detail = served.json()
    assert detail["command"][:3] == ["vllm", "serve", "/s3/outputs/tuned"]
    assert detail["modelSourceUri"].startswith("s3://") and detail["modelSourceUri"].endswith("/outputs/tuned")


def test_delete_needs_a_plan_and_its_token_and_removes_the_server_and_its_service(
    running_sandbox, cluster, operator
) -> None:
    body = {"name": "gone", "command": "python -m sglang.launch_server --model-path Qwen/Qwen3-0.6B --tp 1", "gpus": 1}
    created = operator.post(f"/clusters/{TAG}/deployments", json=body)
    assert created.status_code == 201 and created.json()["port"] == 30000
    plan = operator.delete(f"/clusters/{TAG}/deployments/gone").json()
    deleted = operator.delete(
        f"/clusters/{TAG}/deployments/gone", params={"confirmationToken": plan["confirmationToken"]}
    )

    assert {(a["resource"], a["name"]) for a in plan["actions"]} == {
        ("Deployment", "default/gone"),
        ("Service", "default/gone"),
    }
    assert deleted.status_code == 200 and deleted.json()["dryRun"] is False
    assert operator.get(f"/clusters/{TAG}/deployments/gone").status_code == 404
    services = operator.get(f"/clusters/{TAG}/services").json()["services"]
    assert all(service["name"] != "gone" for service in services)


def test_a_token_secret_must_be_the_control_planes_and_a_servers_own_goes_with_it(
    running_sandbox, cluster, operator
) -> None:
    """Issue 29, finding 4: a service account's token (any Secret not labelled as the control plane's) never reaches
    a server's environment; the Secret a deploy made for its token is planned and deleted with the server."""
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{TAG}")
    borrowed = {"name": "sa-token", "namespace": "default", "annotations": {"kubernetes.io/service-account.name": "x"}}
    store.put({"apiVersion": "v1", "kind": "Secret", "metadata": borrowed, "data": {"token": "eA=="}})
    body = {"command": SEED_COMMAND, "gpus": 1}
    refused = operator.post(
        f"/clusters/{TAG}/deployments", json={**body, "name": "borrow", "huggingFaceTokenSecret": "sa-token"}
    )
    created = operator.post(
        f"/clusters/{TAG}/deployments", json={**body, "name": "tokened", "huggingFaceToken": "hf_x"}
    )
    plan = operator.delete(f"/clusters/{TAG}/deployments/tokened").json()
    deleted = operator.delete(
        f"/clusters/{TAG}/deployments/tokened", params={"confirmationToken": plan["confirmationToken"]}
    )

    assert (refused.status_code, refused.json()["code"]) == (409, "ForeignResource"), refused.text
    assert "kubectl label secret sa-token -n default app.kubernetes.io/managed-by=instantstart" in refused.text
    assert store.get("apps", "v1", "deployments", "default", "borrow") is None
    assert created.status_code == 201, created.text
    assert ("Secret", "default/tokened-hf-token") in {(a["resource"], a["name"]) for a in plan["actions"]}
    assert deleted.status_code == 200, deleted.text
    assert store.get("", "v1", "secrets", "default", "tokened-hf-token") is None


def test_scaling_to_zero_needs_the_persons_confirmation_through_the_api_and_the_tools(
    running_sandbox, cluster, operator
) -> None:
    body = {"name": "pause", "command": "vllm serve Qwen/Qwen3-0.6B", "gpus": 1}
    assert operator.post(f"/clusters/{TAG}/deployments", json=body).status_code == 201
    ready(operator, "pause")

    asked = operator.patch(f"/clusters/{TAG}/deployments/pause", json={"replicas": 0})

    assert asked.status_code == 400 and asked.json()["code"] == "ConfirmationRequired", asked.text
    plan = asked.json()["details"]
    assert [(a["action"], a["resource"], a["name"]) for a in plan["actions"]] == [
        ("update", "Deployment", "default/pause"),
        ("keep", "Service", "default/pause"),
    ]
    assert operator.get(f"/clusters/{TAG}/deployments/pause").json()["replicas"] == 1

    async def through_the_tool() -> Any:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:
            return await client.call_tool(
                "inference_update_deployment", {"clusterTag": TAG, "name": "pause", "replicas": 0}
            )

    tool = asyncio.run(through_the_tool())
    assert tool.is_error and tool.content[0].text.startswith("Not done; nothing changed: the person must confirm")
    assert operator.get(f"/clusters/{TAG}/deployments/pause").json()["replicas"] == 1

    done = operator.patch(
        f"/clusters/{TAG}/deployments/pause",
        json={"replicas": 0},
        params={"confirmationToken": plan["confirmationToken"]},
    )

    assert done.status_code == 200, done.text
    assert (done.json()["changes"], done.json()["deployment"]["replicas"]) == ({"replicas": "updated"}, 0)


def test_a_running_model_server_counts_its_gpus_as_used_in_the_overview(running_sandbox, cluster, operator) -> None:
    """Issue 31, finding 6: the overview read 0 GPUs used while GPU workloads ran (the emulator dropped the pods'
    `resources`)."""
    used_before = operator.get(f"/clusters/{TAG}/overview").json()["gpus"]["used"]
    body = {"name": "busy", "command": "vllm serve Qwen/Qwen3-0.6B", "gpus": 1}
    assert operator.post(f"/clusters/{TAG}/deployments", json=body).status_code == 201

    assert ready(operator, "busy")["status"] == "Ready"
    assert operator.get(f"/clusters/{TAG}/overview").json()["gpus"]["used"] == used_before + 1
