"""Monitoring through the real API handler on a sandbox cluster: the overview counts the cluster's nodes, GPUs,
pods and Warning events as the Kubernetes emulator holds them, the pods route pages through every pod once, and the
MCP tools read both."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi

TAG = "monitor"
EKS = f"eks-cluster-{TAG}"
NODES = 2
FIRST_GROUP_NAME = "accelerated-worker"
WORKLOAD_PODS = 120


def pod(name: str, namespace: str, node: str | None, phase: str, gpus: int = 0, **status: Any) -> dict[str, Any]:
    resources = {"limits": {"nvidia.com/gpu": str(gpus)}} if gpus else {}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            **({"nodeName": node} if node else {}),
            "containers": [{"name": "main", "image": "train:1", "resources": resources}],
        },
        "status": {"phase": phase, **status},
    }


def warning(name: str, at: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "team"},
        "involvedObject": {"kind": "Pod", "name": "stuck", "namespace": "team"},
        "type": "Warning",
        "reason": "FailedScheduling",
        "message": f"0/2 nodes are available ({name})",
        "lastTimestamp": at,
        "count": 3,
    }


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> list[str]:
    """A HyperPod cluster of two nodes running GPU pods, one pod that cannot be scheduled and Warning events."""
    running_sandbox.build_cluster(TAG, instances=NODES)
    store = running_sandbox.sandbox.emulator.store(EKS)
    nodes = sorted(node["metadata"]["name"] for node in store.list("", "v1", "nodes"))
    assert len(nodes) == NODES
    for index in range(WORKLOAD_PODS):
        store.put(pod(f"work-{index:03d}", f"team-{index % 3}", nodes[index % NODES], "Running"))
    store.put(pod("trainer", "team", nodes[0], "Running", gpus=1))
    unschedulable = {
        "type": "PodScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "Insufficient nvidia.com/gpu",
    }
    store.put(pod("stuck", "team", None, "Pending", gpus=8, conditions=[unschedulable]))
    for index in range(3):
        store.put(warning(f"stuck.{index}", f"2026-01-01T00:00:0{index}Z"))
    return nodes


def test_the_overview_counts_the_cluster_as_kubernetes_holds_it(running_sandbox, cluster):
    with running_sandbox.client("sandbox-viewer") as api:
        response = api.get(f"/clusters/{TAG}/overview")

    assert response.status_code == 200, response.text
    overview = response.json()
    assert overview["nodesTotal"] == NODES
    assert overview["nodesByState"] == {"Ready": NODES}
    gpus = overview["gpus"]
    assert gpus["used"] == 1 and gpus["available"] == gpus["allocatable"] - 1 and gpus["total"] >= NODES
    [group] = overview["groups"]
    assert group["name"] == FIRST_GROUP_NAME and group["nodes"] == NODES and group["gpus"]["used"] == 1
    assert overview["podsByPhase"]["Pending"] == 1
    assert overview["podsByPhase"]["Running"] >= WORKLOAD_PODS + 1
    assert overview["pendingByReason"] == {"Unschedulable": 1}
    [stuck] = overview["pendingPods"]
    assert (stuck["name"], stuck["message"]) == ("stuck", "Insufficient nvidia.com/gpu")
    assert overview["warningEventsTotal"] >= 3
    ours = [event for event in overview["events"] if event["object"] == "Pod/stuck"]
    assert [event["at"] for event in ours] == [f"2026-01-01T00:00:0{index}Z" for index in (2, 1, 0)]


def test_pods_page_through_every_pod_once(running_sandbox, cluster):
    with running_sandbox.client("sandbox-viewer") as api:
        seen, token, pages = [], None, 0
        while True:
            body = api.get(
                f"/clusters/{TAG}/pods", params={"limit": 17, **({"continue": token} if token else {})}
            ).json()
            pages += 1
            assert len(body["pods"]) <= 17
            seen.extend(f"{entry['namespace']}/{entry['name']}" for entry in body["pods"])
            if not (token := body.get("continue")):
                break
        on_first = api.get(f"/clusters/{TAG}/pods", params={"node": cluster[0], "namespace": "team", "limit": 100})
        pending = api.get(f"/clusters/{TAG}/pods", params={"phase": "Pending"}).json()

    assert len(seen) == len(set(seen)) and len(seen) >= WORKLOAD_PODS + 2
    assert pages == -(-len(seen) // 17)
    assert {f"team-{index % 3}/work-{index:03d}" for index in range(WORKLOAD_PODS)} <= set(seen)
    assert [entry["name"] for entry in on_first.json()["pods"]] == ["trainer"]
    assert [(entry["name"], entry["reason"]) for entry in pending["pods"]] == [("stuck", "Unschedulable")]


@pytest.mark.parametrize(
    ("params", "mentions"),
    [
        ({"continue": "not-a-token"}, "continue token"),
        ({"phase": "Sleeping"}, "phase"),
        ({"node": "Not A Node"}, "node"),
        ({"namespaceName": "team"}, "namespace"),
    ],
)
def test_bad_pod_filters_are_a_400_that_says_what_to_change(running_sandbox, cluster, params, mentions):
    with running_sandbox.client("sandbox-viewer") as api:
        response = api.get(f"/clusters/{TAG}/pods", params=params)

    assert response.status_code == 400, response.text
    assert mentions in response.text


def test_the_overview_of_an_unknown_cluster_is_a_404(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get("/clusters/nobody/overview").status_code == 404


def test_the_mcp_tools_read_the_overview_and_the_pods(running_sandbox, cluster):
    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-viewer")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            overview = await client.call_tool("cluster_get_overview", {"clusterTag": TAG})
            pods = await client.call_tool("cluster_list_pods", {"clusterTag": TAG, "phase": "Pending"})
            annotations = listed["cluster_get_overview"].annotations
            assert annotations is not None and not overview.is_error and not pods.is_error
            return dict(overview.structured_content), dict(pods.structured_content), annotations.model_dump()

    overview, pods, annotations = asyncio.run(scenario())

    assert overview["nodesTotal"] == NODES
    assert [entry["name"] for entry in pods["pods"]] == ["stuck"]
    assert annotations["read_only_hint"] is True
