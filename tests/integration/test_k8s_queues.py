"""The Kueue gateway against the emulated API server with the simulated Kueue: a team's ClusterQueue usage, an
admitted and a waiting Workload with Kueue's reason, and a cluster without Kueue read as empty."""

from __future__ import annotations

import time
from typing import Any

import pytest

from controlplane.adapters.k8s.queues import KubernetesKueueGateway
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.queues import KueueReadRefusedError
from controlplane.core.training.manifest import JobPlacement, render
from controlplane.models.training import SubmitJobRequest
from sandbox.aws.hyperpod import queues
from sandbox.aws.hyperpod.model import ComputeQuota
from sandbox.k8s import kueue
from sandbox.k8s.crds import published_crd
from sandbox.k8s.emulator import KubernetesEmulator
from sandbox.k8s.training import GROUP, PLURAL, VERSION
from tests.integration.conftest import REGION, StaticCredentialsFactory

TYPE = "ml.g5.12xlarge"


@pytest.fixture(scope="module")
def kueue_installed(served: tuple[KubernetesEmulator, str]) -> KubernetesEmulator:
    emulator = served[0]
    kueue.KueueSimulation(emulator).install()
    return emulator


def team(emulator: KubernetesEmulator, cluster: str) -> None:
    store = emulator.store(cluster)
    kueue.serve(store)
    config = {"ComputeQuotaResources": [{"InstanceType": TYPE, "Count": 1}]}
    quota = ComputeQuota("q", "arn", "ml-a", "c", config, "ml-a", None, "Enabled", None, 0.0, 0.0)
    for obj in (queues.team_namespace("ml-a"), *queues.flavors(quota), queues.cluster_queue(quota)):
        store.put(obj)
    store.put(queues.local_queue("ml-a"))
    store.put(published_crd(f"{PLURAL}.{GROUP}"))


def submit(emulator: KubernetesEmulator, cluster: str, name: str) -> None:
    body = {"name": name, "image": "img", "nodes": 1, "gpusPerNode": 4, "instanceType": TYPE}
    job: dict[str, Any] = render(SubmitJobRequest.model_validate(body), JobPlacement("hyperpod-ns-ml-a", "c", None, 0))
    job["metadata"].update(namespace="hyperpod-ns-ml-a")
    job["metadata"].setdefault("labels", {})[kueue.QUEUE_LABEL] = queues.local_queue_name("ml-a")
    kind = emulator.transact(cluster, lambda s, _: s.served(GROUP, VERSION, PLURAL))
    emulator.transact(cluster, lambda s, events: s.create(kind, "hyperpod-ns-ml-a", job, events))


def test_the_gateway_reads_a_teams_usage_and_its_admitted_and_waiting_workloads(
    kueue_installed: KubernetesEmulator, cluster: EksCluster, factory: Any
) -> None:
    team(kueue_installed, cluster.name)
    submit(kueue_installed, cluster.name, "first")
    submit(kueue_installed, cluster.name, "second")
    gateway = KubernetesKueueGateway(factory)
    deadline = time.monotonic() + 10
    while len(found := gateway.workloads(cluster, REGION, "hyperpod-ns-ml-a")) < 2 or not found[1].message:
        assert time.monotonic() < deadline, found
        time.sleep(0.02)
    first, second = found
    assert (first.job_kind, first.job_name, first.admitted, first.reason) == ("HyperPodPyTorchJob", "first", True, None)
    assert (second.job_name, second.admitted, second.reason) == ("second", False, "Pending")
    assert second.message is not None and "insufficient unused quota for nvidia.com/gpu" in second.message
    [queue] = gateway.cluster_queues(cluster, REGION)
    gpus = next(use for use in queue.usage if use.resource == "nvidia.com/gpu")
    assert (queue.name, gpus.flavor, gpus.total, queue.admitted, queue.pending) == (
        "hyperpod-ns-ml-a-clusterqueue", TYPE, "4", 1, 1,
    )  # fmt: skip


def test_a_cluster_without_kueue_has_no_queues_and_no_workloads(cluster: EksCluster, factory: Any) -> None:
    gateway = KubernetesKueueGateway(factory)
    assert gateway.cluster_queues(cluster, REGION) == []
    assert gateway.workloads(cluster, REGION) == []


@pytest.mark.parametrize("reader", [False, True], ids=["any-role", "view-role"])
def test_rbac_refusing_kueues_kinds_is_a_typed_refusal_naming_the_kind(
    served: tuple[KubernetesEmulator, str], cluster: EksCluster, reader: bool
) -> None:
    """The view role's refused reads are the cluster's typed access refusal; Kueue's port still says which kind."""
    emulator = served[0]
    emulator.set_authorizer(lambda _cluster, _token, access: access.api_group != "kueue.x-k8s.io")
    gateway = KubernetesKueueGateway(StaticCredentialsFactory("arn:aws:iam::123456789012:role/view", reader=reader))
    try:
        with pytest.raises(KueueReadRefusedError, match=r"clusterqueues\.kueue\.x-k8s\.io: Forbidden"):
            gateway.cluster_queues(cluster, REGION)
        with pytest.raises(KueueReadRefusedError, match=r"workloads\.kueue\.x-k8s\.io"):
            gateway.workloads(cluster, REGION)
    finally:
        emulator.set_authorizer(None)
