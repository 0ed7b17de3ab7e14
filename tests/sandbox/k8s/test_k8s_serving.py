"""The simulated model servers on the emulator alone: pods on GPU nodes that become Ready after the load time,
scale-in by deletion cost, relabelling that keeps the pod, the echo model behind the service proxy; and the
model-server writers' RBAC."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.serving import manifest
from controlplane.core.serving.command import parse
from controlplane.core.workload_access import JOB_WRITERS_GROUP, serving_writer_rbac
from controlplane.models.serving import DeployModelRequest
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.rbac import ApiAccess, rbac_allows
from sandbox.k8s.serving import SANDBOX_NOTICE, ModelServingSimulation

CLUSTER = "eks-cluster-sim"
SELECTOR = "instantstart.aws/model-server=qwen"


def node(name: str, gpus: int) -> dict[str, Any]:
    capacity = {"nvidia.com/gpu": str(gpus)}
    labels = {"node.kubernetes.io/instance-type": "ml.g5.12xlarge"}
    status = {"capacity": capacity, "allocatable": capacity, "conditions": [{"type": "Ready", "status": "True"}]}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "status": status}


@pytest.fixture
def world() -> tuple[KubernetesEmulator, ModelServingSimulation, ClusterStore]:
    emulator = KubernetesEmulator()
    serving = ModelServingSimulation(emulator, seconds_to_load=0.05)
    serving.install()
    store = emulator.store(CLUSTER)
    store.put(node("hyperpod-i-0", 4))
    return emulator, serving, store


def deploy(store: ClusterStore, **fields: Any) -> None:
    request = DeployModelRequest.model_validate(
        {"name": "qwen", "command": "vllm serve Qwen/Qwen3-0.6B", "gpus": 1, **fields}
    )
    command = parse(request.command)
    placement = manifest.ServerPlacement("default", None, None, None)
    store.put(manifest.deployment(request, command, placement))
    if request.serviceType != "pool":
        store.put(manifest.service("qwen", "default", "qwen", command.port, external=False))


def until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)


def ready_replicas(store: ClusterStore) -> int:
    return int(
        ((store.get("apps", "v1", "deployments", "default", "qwen") or {}).get("status") or {}).get("readyReplicas")
        or 0
    )


def test_pods_start_loading_then_become_ready_and_the_deployment_counts_them(world) -> None:
    _, _, store = world

    deploy(store, replicas=2)

    pods = store.list("", "v1", "pods", "default", SELECTOR)
    assert len(pods) == 2 and all(pod["spec"]["nodeName"] == "hyperpod-i-0" for pod in pods)
    until(lambda: ready_replicas(store) == 2)
    assert ready_replicas(store) == 2


def test_a_deployments_pods_keep_the_templates_gpu_resources_with_requests_defaulted_to_limits(world) -> None:
    _, _, store = world

    deploy(store, gpus=2)

    [pod] = store.list("", "v1", "pods", "default", SELECTOR)
    resources = pod["spec"]["containers"][0]["resources"]
    assert resources["limits"]["nvidia.com/gpu"] == "2"
    assert resources["requests"]["nvidia.com/gpu"] == "2"


def test_the_echo_model_answers_behind_the_service_only_once_a_pod_is_ready(world) -> None:
    emulator, serving, store = world
    serving.seconds_to_load = 0.3
    deploy(store)
    body = json.dumps({"messages": [{"role": "user", "content": "hello"}]}).encode()

    loading = emulator.proxy(CLUSTER, "default", "qwen:8000", "/v1/chat/completions", "POST", body)
    until(lambda: ready_replicas(store) == 1)
    status, text = emulator.proxy(CLUSTER, "default", "qwen:8000", "/v1/chat/completions", "POST", body)

    assert loading[0] == 503
    completion = json.loads(text)
    assert status == 200 and completion["model"] == "Qwen/Qwen3-0.6B"
    assert completion["choices"][0]["message"]["content"] == f"{SANDBOX_NOTICE} You said: hello"
    assert emulator.proxy(CLUSTER, "default", "qwen", "/health", "GET", b"")[0] == 200


def test_relabelling_a_worker_keeps_its_pod_and_scale_in_removes_the_unassigned_first(world) -> None:
    _, _, store = world
    deploy(store, replicas=2, serviceType="pool")
    first, _ = store.list("", "v1", "pods", "default", SELECTOR)
    first["metadata"]["labels"]["business"] = "chat"
    first["metadata"]["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": "10000"}
    store.put(first)

    deployment = store.get("apps", "v1", "deployments", "default", "qwen") or {}
    deployment["spec"]["replicas"] = 1
    store.put(deployment)

    [kept] = store.list("", "v1", "pods", "default", SELECTOR)
    assert (kept["metadata"]["name"], kept["metadata"]["uid"]) == (first["metadata"]["name"], first["metadata"]["uid"])
    assert kept["metadata"]["labels"]["business"] == "chat"


def test_scale_in_ranks_pods_as_a_replicaset_does_phase_then_readiness_before_deletion_cost(world) -> None:
    _, _, store = world
    deploy(store, replicas=3)
    until(lambda: ready_replicas(store) == 3)
    ready, not_ready, unknown = store.list("", "v1", "pods", "default", SELECTOR)
    ready["metadata"]["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": "-5"}
    not_ready["metadata"]["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": "50"}
    not_ready["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    unknown["metadata"]["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": "100"}
    unknown["status"]["phase"] = "Unknown"
    for pod in (ready, not_ready, unknown):
        store.put(pod)

    deployment = store.get("apps", "v1", "deployments", "default", "qwen") or {}
    deployment["spec"]["replicas"] = 2
    store.put(deployment)
    assert {pod["metadata"]["name"] for pod in store.list("", "v1", "pods", "default", SELECTOR)} == {
        ready["metadata"]["name"],
        not_ready["metadata"]["name"],
    }
    deployment = store.get("apps", "v1", "deployments", "default", "qwen") or {}
    deployment["spec"]["replicas"] = 1
    store.put(deployment)

    [kept] = store.list("", "v1", "pods", "default", SELECTOR)
    assert kept["metadata"]["name"] == ready["metadata"]["name"]


def test_deleting_the_deployment_deletes_its_pods(world) -> None:
    _, _, store = world
    deploy(store, replicas=2)

    store.delete("apps", "v1", "deployments", "default", "qwen")

    assert store.list("", "v1", "pods", "default", SELECTOR) == []


def test_the_model_server_writers_may_write_servers_and_call_the_proxy_and_nothing_else(world) -> None:
    _, _, store = world
    for obj in serving_writer_rbac():
        store.put(obj)

    def allowed(verb: str, group: str, resource: str) -> bool:
        return rbac_allows(store, [JOB_WRITERS_GROUP], ApiAccess(verb, group, resource))

    assert allowed("create", "apps", "deployments") and allowed("patch", "apps", "deployments")
    assert allowed("create", "", "services/proxy") and allowed("patch", "", "pods")
    assert not allowed("create", "", "pods") and not allowed("delete", "", "pods")
    assert not allowed("create", "", "configmaps") and not allowed("get", "", "secrets")
