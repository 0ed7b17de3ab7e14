"""A team's model server while Kueue holds its pods, against in-memory fakes: Queued with its pod's Workload's reason
in the detail and the list, and no Kueue read for a server that cannot be waiting."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from controlplane.core.ports.queues import KueueReadRefusedError, QueuedWorkload
from controlplane.core.serving import listed_queue
from controlplane.core.serving.manifest import MODEL_LABEL
from controlplane.core.training.queueing import NO_WORKLOAD
from controlplane.models.clusters import ClusterRecord
from controlplane.models.serving import DeployModelRequest
from tests.fakes.persistence import FakeClock
from tests.unit.core.serving.test_model_servers import EKS_NAME, REGION, SEED, World

TEAM_NAMESPACE = "hyperpod-ns-ml-a"
WAITS = (
    "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor ml.g5.12xlarge, "
    "1 more needed"
)


@pytest.fixture
def world(make_record: Callable[..., ClusterRecord], clock: FakeClock) -> World:
    record = make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim", storageBucket="bucket-demo")
    found = World(record, clock)
    found.add_team("ml-a")
    found.servers.deploy("demo", DeployModelRequest(name="qwen", command=SEED, gpus=1, team="ml-a"))
    return found


def add_pod(world: World, name: str, gated: bool, namespace: str = TEAM_NAMESPACE) -> None:
    labels = {MODEL_LABEL: "qwen", "kueue.x-k8s.io/managed": "true"}
    spec = {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]} if gated else {"nodeName": "n-1"}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}", "labels": labels},
        "spec": spec,
        "status": {"phase": "Pending" if gated else "Running"},
    }
    world.kubernetes.apply(world.cluster, REGION, [pod])


def pod_workload(pod: str, message: str | None) -> QueuedWorkload:
    return QueuedWorkload(
        f"pod-{pod}-1a2b3",
        TEAM_NAMESPACE,
        "Pod",
        pod,
        "hyperpod-ns-ml-a-localqueue",
        None,
        False,
        False,
        "Pending" if message else None,
        message,
        None,
    )


def test_a_team_server_whose_pod_kueue_holds_is_queued_with_its_workloads_reason(world: World) -> None:
    add_pod(world, "qwen-a", gated=True)
    world.queues.workload_list[EKS_NAME] = [pod_workload("qwen-a", WAITS)]

    detail = world.servers.get("demo", "qwen")
    [listed] = world.servers.list_deployments("demo").deployments

    assert (detail.status, detail.waitingReason) == ("Queued", f"Pending: {WAITS}")
    assert [(pod.name, pod.queued) for pod in detail.pods] == [("qwen-a", True)]
    assert (listed.status, listed.waitingReason) == ("Queued", f"Pending: {WAITS}")


def test_a_gated_pod_kueue_made_no_workload_for_says_its_priority_class_may_be_missing(world: World) -> None:
    add_pod(world, "qwen-a", gated=True)

    detail = world.servers.get("demo", "qwen")

    assert (detail.status, detail.waitingReason) == ("Queued", NO_WORKLOAD)


def test_a_loading_server_whose_pods_kueue_admitted_reads_no_workload(world: World) -> None:
    add_pod(world, "qwen-a", gated=False)
    world.queues.workload_list[EKS_NAME] = [pod_workload("qwen-b", WAITS)]

    detail = world.servers.get("demo", "qwen")
    [listed] = world.servers.list_deployments("demo").deployments

    assert (detail.status, detail.waitingReason, listed.status) == ("Loading", None, "Loading")
    assert [(pod.name, pod.queued) for pod in detail.pods] == [("qwen-a", False)]
    assert world.queues.reads == 0


def test_a_gated_pod_whose_workloads_rbac_refuses_leaves_the_server_queued_saying_so(world: World) -> None:
    add_pod(world, "qwen-a", gated=True)
    world.queues.refusal = KueueReadRefusedError("workloads.kueue.x-k8s.io: Forbidden")

    detail = world.servers.get("demo", "qwen")

    assert detail.status == "Queued"
    assert detail.waitingReason == (
        "Kueue holds its pods; why is unknown: the cluster's RBAC refuses the view role Kueue's "
        "workloads.kueue.x-k8s.io: Forbidden (403); the view role's access entry needs the Kubernetes group "
        "instantstart:viewers and its ClusterRole instantstart-view-reader: POST /clusters/{clusterTag}/access "
        "restores them (stage 1's Ensure Access Entry)."
    )


def test_the_list_reads_the_workloads_of_the_namespaces_holding_a_listed_servers_pod_only(world: World) -> None:
    add_pod(world, "qwen-a", gated=True)
    add_pod(world, "other-a", gated=True, namespace="hyperpod-ns-ml-b")
    world.queues.workload_list[EKS_NAME] = [pod_workload("qwen-a", WAITS)]

    [listed] = world.servers.list_deployments("demo").deployments

    assert (listed.status, listed.waitingReason) == ("Queued", f"Pending: {WAITS}")
    assert world.queues.asked == [TEAM_NAMESPACE]


def test_the_list_finds_a_gated_pod_past_the_first_page_of_pods(world: World) -> None:
    for index in range(listed_queue.PAGE):
        add_pod(world, f"qwen-{index:04d}", gated=False)
    add_pod(world, "qwen-z", gated=True)
    world.queues.workload_list[EKS_NAME] = [pod_workload("qwen-z", WAITS)]

    [listed] = world.servers.list_deployments("demo").deployments

    assert (listed.status, listed.waitingReason) == ("Queued", f"Pending: {WAITS}")
