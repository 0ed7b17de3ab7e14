"""The simulated Kueue's deployment integration on the emulator: a team's model-server Deployment has each pod gated
with its own Workload, admitted by the team's quota (its pods' requests), scheduled once admitted, and admitted in
turn when another server frees the quota."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from sandbox.aws.hyperpod import queues
from sandbox.aws.hyperpod.model import ComputeQuota
from sandbox.k8s import kueue, kueue_pods
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.serving import DELETION_COST, MODEL_LABEL, ModelServingSimulation

CLUSTER = "eks-cluster-kueue-serving"
TYPE = "ml.g5.12xlarge"  # 4 GPUs a node
TEAM = "ml-a"
NAMESPACE = queues.namespace(TEAM)


def node(name: str) -> dict[str, Any]:
    labels = {"node.kubernetes.io/instance-type": TYPE}
    capacity = {"nvidia.com/gpu": "4"}
    status = {"capacity": capacity, "allocatable": capacity, "conditions": [{"type": "Ready", "status": "True"}]}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "status": status}


@pytest.fixture
def world() -> tuple[KubernetesEmulator, ClusterStore]:
    emulator = KubernetesEmulator()
    kueue.KueueSimulation(emulator).install()
    ModelServingSimulation(emulator, seconds_to_load=0.05).install()
    return emulator, team_cluster(emulator)


def team_cluster(emulator: KubernetesEmulator) -> ClusterStore:
    """The cluster with Kueue served, two 4-GPU nodes, and team ml-a's queues (a quota of one node)."""
    emulator.add_cluster(CLUSTER)
    store = emulator.store(CLUSTER)
    kueue.serve(store)
    for index in range(2):
        store.put(node(f"hyperpod-i-{index}"))
    config = {"ComputeQuotaResources": [{"InstanceType": TYPE, "Count": 1}]}
    team = ComputeQuota("q", "arn", TEAM, "cluster", config, TEAM, None, "Enabled", None, 0.0, 0.0)
    for obj in (queues.team_namespace(TEAM), *queues.flavors(team), queues.cluster_queue(team)):
        store.put(obj)
    store.put(queues.local_queue(TEAM))
    return store


def deploy(emulator: KubernetesEmulator, name: str, gpus: int = 4, queued: bool = True) -> None:
    """Create a model server's Deployment through the API's create path, where Kueue's webhooks run."""
    labels = {MODEL_LABEL: name, **({kueue.QUEUE_LABEL: queues.local_queue_name(TEAM)} if queued else {})}
    limits = {"nvidia.com/gpu": str(gpus)}
    container = {"name": "server", "image": "vllm/vllm-openai", "resources": {"requests": limits, "limits": limits}}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {MODEL_LABEL: name}},
            "template": {"metadata": {"labels": dict(labels)}, "spec": {"containers": [container]}},
        },
    }
    kind = emulator.transact(CLUSTER, lambda s, _: s.served("apps", "v1", "deployments"))
    emulator.transact(CLUSTER, lambda s, events: s.create(kind, NAMESPACE, deployment, events))


def pod(store: ClusterStore, server: str) -> dict[str, Any]:
    found = store.list("", "v1", "pods", NAMESPACE, f"{MODEL_LABEL}={server}")
    assert len(found) == 1, found
    return found[0]


def workload_of(store: ClusterStore, server: str) -> dict[str, Any] | None:
    return store.get(kueue.GROUP, kueue.VERSION, "workloads", NAMESPACE, kueue_pods.workload_name(pod(store, server)))


def quota_reserved(workload: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in workload["status"]["conditions"] if c["type"] == "QuotaReserved")


def eventually(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def test_a_queued_deployments_pod_template_carries_kueues_suspension_and_labels(world: Any) -> None:
    emulator, store = world
    deploy(emulator, "llama")

    template = store.get("apps", "v1", "deployments", NAMESPACE, "llama")["spec"]["template"]["metadata"]
    assert template["annotations"][kueue_pods.SUSPENDING_PARENT] == "deployment"
    assert template["labels"][kueue_pods.MANAGED_LABEL] == "true"
    assert template["labels"][kueue.QUEUE_LABEL] == queues.local_queue_name(TEAM)


def test_an_admitted_pod_is_ungated_scheduled_and_told_which_queue_admitted_it(world: Any) -> None:
    emulator, store = world
    deploy(emulator, "llama")

    admitted = pod(store, "llama")
    workload = workload_of(store, "llama")
    assert workload is not None and quota_reserved(workload)["status"] == "True"
    assert workload["spec"]["podSets"][0]["name"] == "main" and workload["spec"]["podSets"][0]["count"] == 1
    assert workload["metadata"]["ownerReferences"][0]["kind"] == "Pod"
    assert workload["metadata"]["ownerReferences"][0]["name"] == admitted["metadata"]["name"]
    assert "schedulingGates" not in admitted["spec"] and admitted["spec"]["nodeName"].startswith("hyperpod-i-")
    events = store.list("", "v1", "events", NAMESPACE)
    started = [e for e in events if e["reason"] == "Started" and e["involvedObject"]["kind"] == "Pod"]
    assert started[0]["message"] == f"Admitted by clusterQueue {queues.cluster_queue_name(TEAM)}"
    eventually(lambda: store.get("apps", "v1", "deployments", NAMESPACE, "llama")["status"]["readyReplicas"] == 1)


def test_a_pod_over_the_teams_quota_stays_pending_gated_with_kueues_reason(world: Any) -> None:
    emulator, store = world
    deploy(emulator, "llama")
    deploy(emulator, "mistral")

    waiting = pod(store, "mistral")
    assert waiting["spec"]["schedulingGates"] == [{"name": kueue_pods.GATE}]
    assert "nodeName" not in waiting["spec"] and waiting["status"]["phase"] == "Pending"
    assert waiting["status"]["conditions"][0]["reason"] == "SchedulingGated"
    reserved = quota_reserved(workload_of(store, "mistral") or {})
    assert (reserved["status"], reserved["reason"]) == ("False", "Pending")
    assert reserved["message"] == (
        f"couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor {TYPE}, "
        "4 more needed"
    )
    local = store.get(kueue.GROUP, kueue.VERSION, "localqueues", NAMESPACE, queues.local_queue_name(TEAM))
    assert (local["status"]["admittedWorkloads"], local["status"]["pendingWorkloads"]) == (1, 1)


def test_deleting_the_first_server_admits_and_schedules_the_waiting_one(world: Any) -> None:
    emulator, store = world
    deploy(emulator, "llama")
    deploy(emulator, "mistral")

    store.delete("apps", "v1", "deployments", NAMESPACE, "llama")

    eventually(lambda: "nodeName" in pod(store, "mistral")["spec"])
    assert "schedulingGates" not in pod(store, "mistral")["spec"]
    assert quota_reserved(workload_of(store, "mistral") or {})["status"] == "True"
    assert [w["metadata"]["name"] for w in store.list(kueue.GROUP, kueue.VERSION, "workloads", NAMESPACE)] == [
        kueue_pods.workload_name(pod(store, "mistral"))
    ]


def test_scaling_in_removes_the_gated_pod_first_and_its_workload_with_it(world: Any) -> None:
    emulator, store = world
    deploy(emulator, "llama", gpus=2)
    store.put({**store.get("apps", "v1", "deployments", NAMESPACE, "llama"), "spec": scaled(store, "llama", 3)})
    pods = store.list("", "v1", "pods", NAMESPACE, f"{MODEL_LABEL}=llama")
    running = sorted(found["metadata"]["name"] for found in pods if "nodeName" in found["spec"])
    assert len(running) == 2 and len(pods) == 3
    # A ReplicaSet ranks an unscheduled pod for deletion before any deletion cost counts.
    [gated] = [found for found in pods if "nodeName" not in found["spec"]]
    gated["metadata"]["annotations"][DELETION_COST] = "10000"
    store.put(gated)

    store.put({**store.get("apps", "v1", "deployments", NAMESPACE, "llama"), "spec": scaled(store, "llama", 2)})

    kept = store.list("", "v1", "pods", NAMESPACE, f"{MODEL_LABEL}=llama")
    assert sorted(found["metadata"]["name"] for found in kept) == running
    assert len(store.list(kueue.GROUP, kueue.VERSION, "workloads", NAMESPACE)) == 2


def scaled(store: ClusterStore, server: str, replicas: int) -> dict[str, Any]:
    return {**store.get("apps", "v1", "deployments", NAMESPACE, server)["spec"], "replicas": replicas}


def test_a_pods_workload_is_named_as_kueue_names_it(world: Any) -> None:
    emulator, store = world
    deploy(emulator, "llama")

    meta = pod(store, "llama")["metadata"]
    digest = hashlib.sha1(f"Pod\n\n{meta['name']}\n{meta['uid']}".encode(), usedforsecurity=False).hexdigest()[:5]
    assert workload_of(store, "llama")["metadata"]["name"] == f"pod-{meta['name']}-{digest}"


def test_a_deployment_without_a_queue_is_not_kueues(world: Any) -> None:
    emulator, store = world
    deploy(emulator, "llama", queued=False)
    deploy(emulator, "mistral", queued=False)

    assert all("nodeName" in pod(store, name)["spec"] for name in ("llama", "mistral"))
    assert store.list(kueue.GROUP, kueue.VERSION, "workloads", NAMESPACE) == []


def test_kueue_ungating_a_pod_while_the_serving_controller_creates_one_does_not_deadlock() -> None:
    """Each controller holds its lock while its write notifies the other: Kueue's admission ungates a pod (the serving
    controller schedules it) while the serving controller creates a pod (Kueue reconciles)."""
    emulator = KubernetesEmulator()
    kueue_controller = kueue.KueueSimulation(emulator)
    kueue_controller.install()
    serving = ModelServingSimulation(emulator, seconds_to_load=0.05)
    serving.install()
    store = team_cluster(emulator)
    held = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "held", "namespace": NAMESPACE, "labels": {MODEL_LABEL: "held"}},
        "spec": {"schedulingGates": [{"name": kueue_pods.GATE}], "containers": [{"name": "server"}]},
        "status": {"phase": "Pending"},
    }
    store.put(held)
    both_locked = threading.Barrier(2, timeout=5)

    def kueue_admits() -> None:
        with kueue_controller._lock:
            both_locked.wait()
            released = store.get("", "v1", "pods", NAMESPACE, "held")
            kueue_pods.ungate(released)
            store.put(released)

    def serving_creates() -> None:
        with serving._lock:
            both_locked.wait()
            deploy(emulator, "llama")

    threads = [threading.Thread(target=run, daemon=True) for run in (kueue_admits, serving_creates)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=5)

    assert not any(thread.is_alive() for thread in threads), "the two controllers deadlocked"
    assert store.get("", "v1", "pods", NAMESPACE, "held")["spec"]["nodeName"].startswith("hyperpod-i-")
    assert "nodeName" in pod(store, "llama")["spec"]
