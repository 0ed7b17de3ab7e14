"""The simulated Kueue on the emulator alone: the job webhook, Workloads, admission by quota, priority and FIFO, the
messages of a waiting workload, and quota freed by a finished or deleted job."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.training.manifest import JobPlacement, render
from controlplane.models.training import SubmitJobRequest
from sandbox.aws.hyperpod import queues
from sandbox.aws.hyperpod.model import ComputeQuota
from sandbox.k8s import kueue
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.kueue_quota import PodSet, Queue, assign
from sandbox.k8s.training import GROUP, PLURAL, VERSION, TrainingOperatorSimulation

CLUSTER = "eks-cluster-kueue"
TYPE = "ml.g5.12xlarge"  # 4 GPUs a node


def quota(team: str, count: int, strategy: str = "LendAndBorrow", borrow: int | None = None) -> ComputeQuota:
    sharing: dict[str, Any] = {"Strategy": strategy, **({"BorrowLimit": borrow} if borrow is not None else {})}
    config = {"ComputeQuotaResources": [{"InstanceType": TYPE, "Count": count}], "ResourceSharingConfig": sharing}
    return ComputeQuota("q", "arn", team, "cluster", config, team, None, "Enabled", None, 0.0, 0.0)


def node(name: str) -> dict[str, Any]:
    labels = {"node.kubernetes.io/instance-type": TYPE}
    capacity = {"nvidia.com/gpu": "4"}
    status = {"capacity": capacity, "allocatable": capacity, "conditions": [{"type": "Ready", "status": "True"}]}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "status": status}


@pytest.fixture
def world() -> tuple[KubernetesEmulator, TrainingOperatorSimulation, ClusterStore]:
    emulator = KubernetesEmulator()
    kueue_sim = kueue.KueueSimulation(emulator)
    kueue_sim.install()
    training = TrainingOperatorSimulation(emulator, seconds_per_line=0.05)
    training.install()
    training.serve(CLUSTER)
    store = emulator.store(CLUSTER)
    kueue.serve(store)
    for index in range(2):
        store.put(node(f"hyperpod-i-{index}"))
    add_team(store, quota("ml-a", 1))
    return emulator, training, store


def add_team(store: ClusterStore, team: ComputeQuota) -> None:
    for obj in (queues.team_namespace(team.team), *queues.flavors(team), queues.cluster_queue(team)):
        store.put(obj)
    store.put(queues.local_queue(team.team))


def submit(
    emulator: KubernetesEmulator, name: str, team: str = "ml-a", priority: str | None = None, nodes: int = 1
) -> None:
    """Create a job through the API's create path (where Kueue's webhook runs) with the Kueue labels."""
    body = {"name": name, "image": "img", "nodes": nodes, "gpusPerNode": 4, "instanceType": TYPE}
    job = render(SubmitJobRequest.model_validate(body), JobPlacement(queues.namespace(team), "s3-claim", None, 0))
    job["metadata"]["namespace"] = queues.namespace(team)
    job["metadata"].setdefault("labels", {})[kueue.QUEUE_LABEL] = queues.local_queue_name(team)
    if priority is not None:
        job["metadata"]["labels"][kueue.PRIORITY_LABEL] = priority
    kind = emulator.transact(CLUSTER, lambda s, _: s.served(GROUP, VERSION, PLURAL))
    emulator.transact(CLUSTER, lambda s, events: s.create(kind, queues.namespace(team), job, events))


def job(store: ClusterStore, name: str, team: str = "ml-a") -> dict[str, Any]:
    return store.get(GROUP, VERSION, PLURAL, queues.namespace(team), name) or {}


def workload(store: ClusterStore, name: str, team: str = "ml-a") -> dict[str, Any] | None:
    found = job(store, name, team)
    if not found:
        return None
    return store.get(kueue.GROUP, kueue.VERSION, "workloads", queues.namespace(team), kueue.workload_name(found))


def reserved(store: ClusterStore, name: str, team: str = "ml-a") -> dict[str, Any] | None:
    conditions = ((workload(store, name, team) or {}).get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c["type"] == "QuotaReserved"), None)


def until(check: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + 10
    while not (result := check()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return result


def pods(store: ClusterStore, name: str, team: str = "ml-a") -> list[dict[str, Any]]:
    return store.list("", "v1", "pods", queues.namespace(team), f"job-name={name}")


def test_a_queued_job_is_created_suspended_and_admitted_when_its_teams_queue_has_room(world: Any) -> None:
    emulator, _, store = world
    submit(emulator, "first")
    assert until(lambda: (reserved(store, "first") or {}).get("status") == "True")
    admitted = workload(store, "first") or {}
    assert admitted["metadata"]["labels"] == {kueue.JOB_UID_LABEL: job(store, "first")["metadata"]["uid"]}
    assignment = admitted["status"]["admission"]["podSetAssignments"][0]
    assert assignment["flavors"]["nvidia.com/gpu"] == TYPE
    assert assignment["resourceUsage"]["nvidia.com/gpu"] == "4"
    assert job(store, "first")["spec"]["runPolicy"]["suspend"] is False
    assert until(lambda: pods(store, "first"))
    events = {e["reason"]: e["message"] for e in store.list("", "v1", "events", "hyperpod-ns-ml-a")}
    assert events["CreatedWorkload"] == f"Created Workload: hyperpod-ns-ml-a/{admitted['metadata']['name']}"
    assert events["Started"] == "Admitted by clusterQueue hyperpod-ns-ml-a-clusterqueue"
    usage = store.get(kueue.GROUP, kueue.VERSION, "clusterqueues", None, queues.cluster_queue_name("ml-a"))
    gpus = next(r for r in usage["status"]["flavorsUsage"][0]["resources"] if r["name"] == "nvidia.com/gpu")
    assert (gpus["total"], usage["status"]["admittedWorkloads"]) == ("4", 1)


def test_a_job_over_its_teams_quota_waits_with_kueues_message_and_no_pods_until_the_first_is_deleted(
    world: Any,
) -> None:
    emulator, training, store = world
    training.seconds_per_line = 5  # the first job holds its quota until it is deleted
    submit(emulator, "first")
    assert until(lambda: (reserved(store, "first") or {}).get("status") == "True")
    submit(emulator, "second")
    waiting = until(lambda: reserved(store, "second"))
    assert (waiting["status"], waiting["reason"]) == ("False", "Pending")
    assert waiting["message"] == (
        "couldn't assign flavors to pod set pods: insufficient unused quota for nvidia.com/gpu in flavor "
        f"{TYPE}, 4 more needed"
    )
    assert job(store, "second")["spec"]["runPolicy"]["suspend"] is True
    time.sleep(0.1)
    assert pods(store, "second") == []
    local = store.get(kueue.GROUP, kueue.VERSION, "localqueues", "hyperpod-ns-ml-a", queues.local_queue_name("ml-a"))
    assert local["status"]["pendingWorkloads"] == 1
    store.delete(GROUP, VERSION, PLURAL, "hyperpod-ns-ml-a", "first")
    assert until(lambda: (reserved(store, "second") or {}).get("status") == "True")
    assert until(lambda: pods(store, "second"))


def test_a_job_admitted_as_it_is_created_runs_once(world: Any) -> None:
    emulator, training, store = world
    training.seconds_per_line = 0.001
    submit(emulator, "once")
    assert until(
        lambda: any(c["type"] == "Completed" for c in (job(store, "once").get("status") or {}).get("conditions") or [])
    )
    time.sleep(0.1)
    [pod] = pods(store, "once")
    log = emulator.transact(CLUSTER, lambda s, _: s.logs.get(("hyperpod-ns-ml-a", pod["metadata"]["name"])))
    assert log.count("step ") == 30


def test_a_finished_job_frees_its_quota_for_the_next(world: Any) -> None:
    emulator, training, store = world
    training.seconds_per_line = 0.001
    submit(emulator, "first")
    submit(emulator, "second")
    finished = until(lambda: any(c["type"] == "Finished" for c in workload(store, "first")["status"]["conditions"]))
    assert finished
    assert until(lambda: (reserved(store, "second") or {}).get("status") == "True")


def test_the_higher_priority_job_is_admitted_first_then_the_older(world: Any) -> None:
    emulator, _, store = world
    for name, value in (("low-priority", 10), ("high-priority", 90)):
        store.put(
            {
                "apiVersion": kueue.API_VERSION,
                "kind": "WorkloadPriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
        )
    submit(emulator, "running")
    assert until(lambda: (reserved(store, "running") or {}).get("status") == "True")
    submit(emulator, "old-low", priority="low-priority")
    submit(emulator, "new-high", priority="high-priority")
    submit(emulator, "newer-high", priority="high-priority")
    assert until(lambda: reserved(store, "newer-high"))
    assert workload(store, "new-high")["spec"]["priority"] == 90
    store.delete(GROUP, VERSION, PLURAL, "hyperpod-ns-ml-a", "running")
    assert until(lambda: (reserved(store, "new-high") or {}).get("status") == "True")
    assert reserved(store, "newer-high")["status"] == "False"
    assert reserved(store, "old-low")["status"] == "False"


def test_a_job_naming_an_unknown_priority_class_stays_suspended_without_a_workload(world: Any) -> None:
    emulator, _, store = world
    submit(emulator, "lost", priority="nope-priority")
    submit(emulator, "found")  # Kueue has handled the jobs created before it
    assert until(lambda: reserved(store, "found"))
    assert workload(store, "lost") is None
    assert job(store, "lost")["spec"]["runPolicy"]["suspend"] is True


def test_a_job_for_a_team_without_a_queue_is_inadmissible(world: Any) -> None:
    emulator, _, store = world
    store.put(queues.team_namespace("ml-b"))
    submit(emulator, "orphan", team="ml-b")
    waiting = until(lambda: reserved(store, "orphan", team="ml-b"))
    assert (waiting["reason"], waiting["message"]) == (
        "Inadmissible",
        "LocalQueue hyperpod-ns-ml-b-localqueue doesn't exist",
    )


def test_a_grown_quota_admits_the_waiting_job(world: Any) -> None:
    emulator, training, store = world
    training.seconds_per_line = 5  # the first job holds its quota for the whole test
    submit(emulator, "first")
    submit(emulator, "second")
    assert until(lambda: (reserved(store, "second") or {}).get("reason") == "Pending")
    store.put(queues.cluster_queue(quota("ml-a", 2)))
    assert until(lambda: (reserved(store, "second") or {}).get("status") == "True")


def test_a_deactivated_quotas_queue_admits_nothing(world: Any) -> None:
    emulator, _, store = world
    held = quota("ml-a", 1)
    held.activation = "Disabled"
    store.put(queues.cluster_queue(held))
    submit(emulator, "held")
    waiting = until(lambda: reserved(store, "held"))
    assert (waiting["reason"], waiting["message"]) == (
        "Inadmissible",
        "ClusterQueue hyperpod-ns-ml-a-clusterqueue is inactive",
    )


def test_a_job_queued_from_a_namespace_its_cluster_queue_does_not_select_is_inadmissible(world: Any) -> None:
    emulator, _, store = world
    store.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "elsewhere"}})
    borrowed = {**queues.local_queue("ml-a"), "metadata": {"name": "sneaky", "namespace": "elsewhere"}}
    store.put(borrowed)
    body = {"name": "outsider", "image": "img", "nodes": 1, "gpusPerNode": 4, "instanceType": TYPE}
    created = render(SubmitJobRequest.model_validate(body), JobPlacement("elsewhere", "s3-claim", None, 0))
    created["metadata"]["namespace"] = "elsewhere"
    created["metadata"]["labels"][kueue.QUEUE_LABEL] = "sneaky"
    kind = emulator.transact(CLUSTER, lambda s, _: s.served(GROUP, VERSION, PLURAL))
    emulator.transact(CLUSTER, lambda s, events: s.create(kind, "elsewhere", created, events))
    outsider = store.get(GROUP, VERSION, PLURAL, "elsewhere", "outsider")
    waiting = until(
        lambda: next(
            (c for c in (store.get(kueue.GROUP, kueue.VERSION, "workloads", "elsewhere", kueue.workload_name(outsider))
                         or {}).get("status", {}).get("conditions", []) if c["type"] == "QuotaReserved"),
            None,
        )
    )  # fmt: skip
    assert (waiting["reason"], waiting["message"]) == (
        "Inadmissible",
        "Workload namespace doesn't match ClusterQueue selector",
    )


def test_a_job_without_the_queue_label_is_not_suspended(world: Any) -> None:
    emulator, _, store = world
    body = {"name": "free", "image": "img", "nodes": 1, "gpusPerNode": 4, "instanceType": TYPE}
    created = render(SubmitJobRequest.model_validate(body), JobPlacement("default", "s3-claim", None, 0))
    kind = emulator.transact(CLUSTER, lambda s, _: s.served(GROUP, VERSION, PLURAL))
    emulator.transact(CLUSTER, lambda s, events: s.create(kind, "default", created, events))
    assert "suspend" not in (store.get(GROUP, VERSION, PLURAL, "default", "free")["spec"].get("runPolicy") or {})


# --- the quota arithmetic ----------------------------------------------------------------------------------------


def gpu_pod_set(gpus: int) -> PodSet:
    return PodSet("worker", 1, {"nvidia.com/gpu": gpus}, {"node.kubernetes.io/instance-type": TYPE})


def cohort(*teams: ComputeQuota) -> list[Queue]:
    return [Queue.of(queues.cluster_queue(team)) for team in teams]


def test_a_team_borrows_what_its_cohort_lends_up_to_its_borrow_limit() -> None:
    a, b = cohort(quota("ml-a", 1, borrow=100), quota("ml-b", 1))
    flavors, _ = assign(a, [a, b], [gpu_pod_set(8)], {})
    assert flavors == {"worker": TYPE}
    a, b = cohort(quota("ml-a", 1, borrow=50), quota("ml-b", 1))
    flavors, message = assign(a, [a, b], [gpu_pod_set(8)], {})
    assert flavors is None
    assert message.endswith(
        f"insufficient quota for nvidia.com/gpu in flavor {TYPE}, request > maximum capacity (8 > 6)"
    )


def test_a_team_that_only_lends_borrows_nothing_and_one_that_does_not_lend_keeps_its_quota() -> None:
    a, b = cohort(quota("ml-a", 1, strategy="Lend"), quota("ml-b", 1))
    assert assign(a, [a, b], [gpu_pod_set(8)], {})[0] is None
    a, b = cohort(quota("ml-a", 1), quota("ml-b", 1, strategy="DontLend"))
    assert assign(a, [a, b], [gpu_pod_set(8)], {})[0] is None
    assert assign(a, [a, b], [gpu_pod_set(4)], {})[0] == {"worker": TYPE}


def test_what_a_team_borrows_is_not_lent_twice() -> None:
    a, b, c = cohort(quota("ml-a", 1), quota("ml-b", 1), quota("ml-c", 1))
    b.usage[TYPE]["nvidia.com/gpu"] = 8  # b borrowed a's or c's idle 4
    flavors, message = assign(a, [a, b, c], [gpu_pod_set(8)], {})
    assert flavors is None
    assert message.endswith("insufficient unused quota for nvidia.com/gpu in flavor ml.g5.12xlarge, 4 more needed")
