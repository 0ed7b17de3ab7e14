"""Read paths at scale: a sandbox cluster grown through the API to 2,000 HyperPod nodes (4 groups of 500) with
50,000 pods injected into the Kubernetes emulator.

Run with `make bench`. For each route it prints the median wall time of seven calls, peak traced memory
(tracemalloc, every thread of the process, so the emulator's share of a read counts too; measured on another call,
since tracing slows the clock) and response size, where a further call's time goes by area (product, Kubernetes
emulator, moto...; see `tests/bench/sampling.py`, which samples every thread) and a last call's CPU seconds split by
side: the Kubernetes API server's (the emulator's, which in AWS runs on EKS's control plane) and the rest of the
process's, the handler side (what the Lambda does, with uvicorn's serving and the AWS simulators, small here); beside
the naive list-everything read (typed `kubernetes` objects, no pages, every ListClusterNodes page) measured in the
same run.
The issue's targets are printed beside the figures: delete-group plan < 2 s and < 100 MB; status and the first page
of nodes and of pods < 0.3 s and < 64 KB; the monitoring overview (every node, pod and Warning event counted) < 1 s,
< 300 MB peak and < 256 KB, beside the naive overview (typed full lists, counted afterwards). A measurement, not a
timed assertion: only the answers are checked.

While iterating on the overview, `-k overview` runs its rows only (status, nodes, pods, overview and the naive
overview); the delete-group plan and the naive node reads are the other test.
"""

from __future__ import annotations

import gc
import statistics
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import httpx
import pytest

from controlplane import wiring
from controlplane.adapters.aws.eks import AwsEksGateway
from controlplane.core.auth import Actor, Role
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.status import GPU_RESOURCE, GROUP_LABEL
from sandbox.k8s.http import _HttpApi
from tests.bench.sampling import Sampler
from tests.workflows.test_create_hyperpod import FIRST_GROUP

TAG = "scale"
REGION = "us-west-2"
EKS = f"eks-cluster-{TAG}"
GROUP_SIZE = 500
GROUPS = ("accelerated-worker", "busy-b", "busy-c", "idle")
PODS = 50_000
WARNINGS = 2_000
# Wall time is the median of this many calls (the figures are medians of 7).
WALL_RUNS = 7
ADMIN = Actor(principal="bench", role=Role.ADMIN)


def pod(index: int, node: str, workload: bool) -> dict[str, Any]:
    """A pod of realistic shape: a workload's, or a DaemonSet's in a system namespace."""
    namespace = f"team-{index % 20}" if workload else "kube-system"
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet" if workload else "DaemonSet", "name": f"owner-{index % 97}"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"pod-{index:06d}",
            "namespace": namespace,
            "labels": {"app": f"app-{index % 50}", "pod-template-hash": "5d4f8c7b9"},
            "ownerReferences": [{**owner, "uid": f"uid-{index % 97}", "controller": True}],
        },
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "main",
                    "image": "public.ecr.aws/docker/library/python:3.12",
                    "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
                    "env": [{"name": "RANK", "value": str(index % 8)}],
                }
            ],
            "restartPolicy": "Always",
            "serviceAccountName": "default",
        },
        "status": {"phase": "Running", "podIP": f"10.1.{index // 250 % 250}.{index % 250}"},
    }


def warning(index: int, node: str) -> dict[str, Any]:
    """A Kubernetes Warning event about a node."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{node}.{index:06d}", "namespace": "default"},
        "involvedObject": {"kind": "Node", "name": node},
        "type": "Warning",
        "reason": "NodeHasDiskPressure",
        "message": f"Node {node} status is now: NodeHasDiskPressure",
        "lastTimestamp": f"2026-01-01T{index // 3600 % 24:02d}:{index // 60 % 60:02d}:{index % 60:02d}Z",
        "count": 1,
    }


def wait_for(predicate: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "the sandbox cluster did not reach its size in time"
        time.sleep(1)


@pytest.fixture(scope="module")
def big_cluster(running_sandbox) -> Iterator[Any]:
    running_sandbox.build_cluster(TAG, hyperpod=False)
    # The account's quota for the type must cover every group, or pre-flight refuses the first one.
    instances = GROUP_SIZE * len(GROUPS)
    usage = f"{FIRST_GROUP['instanceType']} for cluster usage"
    running_sandbox.sandbox.quotas.set(REGION, "sagemaker", usage, instances)
    with running_sandbox.client() as api:
        accepted = api.post(f"/clusters/{TAG}/hyperpod", json={**FIRST_GROUP, "instanceCount": GROUP_SIZE}).json()
        assert running_sandbox.wait_terminal(accepted["operationId"], 600)["status"] == "SUCCEEDED"
        for name in GROUPS[1:]:
            body = {**FIRST_GROUP, "instanceGroupName": name, "instanceCount": GROUP_SIZE}
            response = api.post(f"/clusters/{TAG}/instance-groups", json=body)
            assert response.status_code == 202, response.text
            assert running_sandbox.wait_terminal(response.json()["operationId"], 600)["status"] == "SUCCEEDED"
    store = running_sandbox.sandbox.emulator.store(EKS)
    wait_for(lambda: len(store.list("", "v1", "nodes")) == instances, 600)
    nodes = store.list("", "v1", "nodes")
    by_group = {
        name: [n["metadata"]["name"] for n in nodes if n["metadata"]["labels"][GROUP_LABEL] == name] for name in GROUPS
    }
    busy = [node for name in GROUPS[:-1] for node in by_group[name]]
    idle = by_group["idle"]
    for index in range(PODS):
        # The idle group's nodes run only DaemonSet pods; the busy groups' nodes run workloads.
        on_idle = index % 4 == 3
        node = idle[index % len(idle)] if on_idle else busy[index % len(busy)]
        store.put(pod(index, node, workload=not on_idle))
    for index in range(WARNINGS):
        store.put(warning(index, busy[index % len(busy)]))
    # The emulator's objects are the API server's heap, not the Lambda's: frozen out of the garbage collector, so a
    # read's collections do not scan 50,000 stored pods (they would triple the cost of parsing a page).
    gc.collect()
    gc.freeze()
    yield running_sandbox
    gc.unfreeze()


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_mb: float
    answer: Any
    where: str  # where the time went, by area (see tests/bench/sampling.py)
    cpu: str  # a fourth call's CPU seconds: the Kubernetes emulator's, and the rest of the process's (the handler side)


def measure(call: Callable[[], Any]) -> Measured:
    """The median wall seconds of seven calls, the peak traced MB of another (tracing slows the clock), where a
    further one's time goes (sampling slows it a little too), a last one's CPU seconds by side, and the answer."""

    def run() -> Any:
        try:
            return call()
        except ClusterNotReadyError as error:
            return error

    walls = []
    for _ in range(WALL_RUNS):
        started = time.perf_counter()
        answer = run()
        walls.append(time.perf_counter() - started)
    seconds = statistics.median(walls)
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    with Sampler() as sampler:
        run()
    with EmulatorClock() as clock:
        process = time.process_time()
        run()
        process = time.process_time() - process
    emulator = clock.seconds
    cpu = f"{process - emulator:.2f} s handler side, {emulator:.2f} s Kubernetes API server (emulator)"
    return Measured(seconds, peak / 2**20, answer, sampler.shares(), cpu)


class EmulatorClock:
    """The CPU seconds the Kubernetes emulator spends answering requests while active (each request is answered on
    one thread, so its thread time is exact), the rest of the process's being the handler's side."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._lock = threading.Lock()
        self._handle = _HttpApi._handle

    def __enter__(self) -> EmulatorClock:
        handle = self._handle

        def timed(api: _HttpApi, call: Any) -> Any:
            started = time.thread_time()
            try:
                return handle(api, call)
            finally:
                with self._lock:
                    self.seconds += time.thread_time() - started

        _HttpApi._handle = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *_: object) -> None:
        _HttpApi._handle = self._handle  # type: ignore[method-assign]


def naive_workload_pods(group: str) -> list[str]:
    """The read before paging: every node and every pod as typed objects, filtered afterwards."""
    from kubernetes import client as k8s

    record = wiring.clusters().get(TAG)
    eks = AwsEksGateway(record.region).find_cluster(record.eksClusterName)
    factory = wiring.kubernetes_clients()
    with factory.api_client(eks, record.region) as api:
        core = k8s.CoreV1Api(api)
        names = {n.metadata.name for n in core.list_node().items if n.metadata.labels.get(GROUP_LABEL) == group}
        pods = core.list_pod_for_all_namespaces(field_selector="status.phase=Running").items
    return [f"{p.metadata.namespace}/{p.metadata.name}" for p in pods if p.spec.node_name in names]


def naive_nodes() -> int:
    """Every ListClusterNodes page and every Kubernetes node as typed objects."""
    from kubernetes import client as k8s

    record = wiring.clusters().get(TAG)
    pages = boto3.client("sagemaker", region_name=record.region).get_paginator("list_cluster_nodes")
    count = sum(len(page["ClusterNodeSummaries"]) for page in pages.paginate(ClusterName=f"hp-cluster-{TAG}"))
    eks = AwsEksGateway(record.region).find_cluster(record.eksClusterName)
    with wiring.kubernetes_clients().api_client(eks, record.region) as api:
        return count + len(k8s.CoreV1Api(api).list_node().items)


def naive_overview() -> dict[str, Any]:
    """The overview before streaming: every node, pod and Warning event as typed objects, counted afterwards."""
    from collections import Counter

    from kubernetes import client as k8s

    record = wiring.clusters().get(TAG)
    eks = AwsEksGateway(record.region).find_cluster(record.eksClusterName)
    with wiring.kubernetes_clients().api_client(eks, record.region) as api:
        core = k8s.CoreV1Api(api)
        nodes = core.list_node().items
        pods = core.list_pod_for_all_namespaces().items
        events = core.list_event_for_all_namespaces(field_selector="type=Warning").items
    return {
        "nodesTotal": len(nodes),
        "gpusTotal": sum(int((n.status.capacity or {}).get(GPU_RESOURCE, 0)) for n in nodes),
        "podsByPhase": Counter(p.status.phase for p in pods),
        "warningEventsTotal": len(events),
    }


def report(name: str, measured: Measured, size: int | None, target: str) -> None:
    shown = f"{size / 1024:7.1f} KB" if size is not None else "      -   "
    print(f"{name:<44} {measured.seconds:7.3f} s {measured.peak_mb:8.1f} MB peak {shown}   target {target}")
    print(f"{'':<44} time in: {measured.where}")
    print(f"{'':<44} CPU: {measured.cpu}")


@pytest.mark.bench
@pytest.mark.timeout(3600)
def test_status_nodes_pods_and_overview_at_two_thousand_nodes_and_fifty_thousand_pods(big_cluster):
    print(f"\n{len(GROUPS)} groups x {GROUP_SIZE} nodes, {PODS} pods")
    with big_cluster.client("sandbox-admin") as api:
        for path, target in (
            (f"/clusters/{TAG}/status", "< 0.3 s, < 64 KB"),
            (f"/clusters/{TAG}/nodes", "< 0.3 s, < 64 KB"),
            (f"/clusters/{TAG}/pods", "< 0.3 s, < 64 KB"),
        ):
            api.get(path)  # warm the clients
            measured = measure(lambda path=path: api.get(path))
            assert measured.answer.status_code == 200, measured.answer.text
            report(f"GET {path.removeprefix(f'/clusters/{TAG}')}", measured, len(measured.answer.content), target)
        status = api.get(f"/clusters/{TAG}/status").json()
        first_page = api.get(f"/clusters/{TAG}/nodes").json()
        first_pods = api.get(f"/clusters/{TAG}/pods").json()
        path = f"/clusters/{TAG}/overview"
        api.timeout = httpx.Timeout(600)  # tracing every allocation of a read of 50,000 pods takes minutes
        api.get(path)  # warm the clients
        measured = measure(lambda: api.get(path))
        assert measured.answer.status_code == 200, measured.answer.text
        report("GET /overview", measured, len(measured.answer.content), "< 1 s, < 300 MB, < 256 KB")
        overview = measured.answer.json()
    assert status["nodesTotal"] == GROUP_SIZE * len(GROUPS)
    assert len(first_page["nodes"]) == 50 and first_page["continue"]
    assert len(first_pods["pods"]) == 50 and first_pods["continue"]
    measured = measure(naive_overview)
    report("overview (naive: typed full lists)", measured, None, "(before)")
    naive = measured.answer
    assert overview["nodesTotal"] == naive["nodesTotal"] == GROUP_SIZE * len(GROUPS)
    assert overview["gpus"]["total"] == naive["gpusTotal"]
    assert overview["podsByPhase"] == dict(naive["podsByPhase"]) and overview["podsTotal"] >= PODS
    assert overview["warningEventsTotal"] == naive["warningEventsTotal"] >= WARNINGS
    assert len(overview["events"]) == 50 and len(overview["nodes"]) == 100
    assert all(node["ready"] is not None for node in first_page["nodes"]), "a page's nodes carry Kubernetes facts"


@pytest.mark.bench
@pytest.mark.timeout(3600)
def test_delete_group_plan_and_nodes_at_two_thousand_nodes(big_cluster):
    groups = wiring.instance_groups()
    for group, busy in (("busy-b", True), ("idle", False)):
        measured = measure(lambda group=group: groups.plan_delete(TAG, group, ADMIN))
        assert isinstance(measured.answer, ClusterNotReadyError) == busy, measured.answer
        report(f"delete-group plan ({group}, pods by node)", measured, None, "< 2 s, < 100 MB")
    # The naive check reads every pod whichever the group, so one group shows it.
    measured = measure(lambda: naive_workload_pods("busy-b"))
    assert measured.answer
    report("delete-group check (naive typed list)", measured, None, "(before)")

    measured = measure(naive_nodes)
    assert measured.answer == 2 * GROUP_SIZE * len(GROUPS)
    report("nodes (naive: every page, typed objects)", measured, None, "(before)")
