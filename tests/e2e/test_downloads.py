"""Downloads through the API and through the MCP tools alone: a model downloaded into the S3 claim, then the claim
listed by prefix; refusals say what to change; the jobs role may write a token's Secret but never list Secrets."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from kubernetes.client.exceptions import ApiException
from mcp import Client

from controlplane import wiring
from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
from controlplane.core.ports.eks import EksCluster
from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi
from tests.conftest import aws_client

TAG = "fetch"
REGION = "us-west-2"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, hyperpod=False, storage=True)
    return TAG


def test_a_dataset_is_downloaded_and_listed_in_pages(running_sandbox, cluster):
    with running_sandbox.client("sandbox-operator") as api:
        accepted = api.post(
            f"/clusters/{TAG}/downloads", json={"repoId": "tatsu-lab/alpaca", "repoType": "dataset"}
        ).json()
        assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
    with running_sandbox.client("sandbox-viewer") as api:
        first = api.get(f"/clusters/{TAG}/storage/contents", params={"prefix": "datasets/", "limit": 1}).json()
        second = api.get(
            f"/clusters/{TAG}/storage/contents",
            params={"prefix": "datasets/", "limit": 1, "continue": first["continue"]},
        ).json()
    assert [o["key"] for o in first["objects"] + second["objects"]] == [
        "datasets/tatsu-lab/alpaca/README.md",
        "datasets/tatsu-lab/alpaca/config.json",
    ]
    assert second["continue"] is None and first["bucketName"].startswith(f"instantstart-{TAG}-")


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "fragment"),
    [
        ("post", "downloads", {"json": {"repoId": "../../etc"}}, 400, "repoId"),
        ("post", "downloads", {"json": {"repoId": "a/b", "token": "x", "tokenSecret": "s"}}, 400, "tokenSecret"),
        ("post", "downloads", {"json": {"repoId": "a/b", "prefix": "../up"}}, 400, "prefix"),
        ("get", "storage/contents", {"params": {"pageSize": 5}}, 400, "prefix, limit, continue"),
    ],
)
def test_refusals_say_what_to_change(running_sandbox, cluster, method, path, kwargs, status, fragment):
    with running_sandbox.client("sandbox-operator") as api:
        response = getattr(api, method)(f"/clusters/{TAG}/{path}", **kwargs)
    assert response.status_code == status, response.text
    assert fragment in response.text


def test_a_cluster_without_a_claim_is_refused_with_the_stage_to_run(running_sandbox):
    running_sandbox.build_cluster("noclaim", hyperpod=False)
    with running_sandbox.client("sandbox-operator") as api:
        response = api.post("/clusters/noclaim/downloads", json={"repoId": "Qwen/Qwen2.5-0.5B"})
        listed = api.get("/clusters/noclaim/storage/contents")
    assert (response.status_code, response.json()["code"]) == (409, "StorageClaimMissing")
    assert "POST /clusters/noclaim/storage" in response.json()["message"]
    assert listed.status_code == 409


def test_the_jobs_role_may_write_a_secret_but_never_list_them(running_sandbox, cluster):
    eks = aws_client("eks", region_name=REGION).describe_cluster(name=f"eks-cluster-{TAG}")["cluster"]
    target = EksCluster(eks["name"], eks["arn"], "ACTIVE", "1.34", eks["endpoint"], None, None, None)
    writer = KubernetesWorkloadGateway(wiring.kubernetes_job_writers())
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "probe", "namespace": "default"}}
    assert writer.create(target, REGION, secret)
    with pytest.raises(ApiException) as refused:
        writer.list_objects(target, REGION, "v1", "Secret", "default", 10, None)
    assert refused.value.status == 403
    assert writer.delete_object(target, REGION, "v1", "Secret", "default", "probe")


def test_through_the_tools_alone_a_model_is_downloaded_and_the_claim_listed(running_sandbox, cluster):
    async def conversation() -> tuple[dict[str, Any], dict[str, Any]]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-operator")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                return dict(result.structured_content)

            operation = await tool("model_download_enhanced", {"clusterTag": TAG, "repoId": "Qwen/Qwen2.5-0.5B"})
            while operation["status"] in ("PENDING", "RUNNING"):
                operation = await tool("operation_wait", {"operationId": operation["operationId"]})
            listed = await tool("s3_storage_list_contents", {"clusterTag": TAG, "prefix": "models/Qwen/Qwen2.5-0.5B/"})
            return operation, listed

    operation, listed = asyncio.run(conversation())
    assert (operation["kind"], operation["status"]) == ("download_to_storage", "SUCCEEDED")
    assert [o["key"] for o in listed["objects"]] == [
        "models/Qwen/Qwen2.5-0.5B/README.md",
        "models/Qwen/Qwen2.5-0.5B/config.json",
    ]
