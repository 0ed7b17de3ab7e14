"""What the server list reads to say which listed servers Kueue holds (`queueing.with_queued`), scoped to them: the
Kueue-managed pods of each namespace where a listed team server is still Loading, every page of them, and the
Workloads of each of those namespaces that has a gated pod (never every namespace's)."""

from __future__ import annotations

from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.queues import KueueGateway, QueuedWorkload
from controlplane.core.ports.serving import ServingGateway
from controlplane.core.serving import queueing
from controlplane.core.serving.manifest import MODEL_LABEL, gated
from controlplane.models.serving import DeploymentSummary

PAGE = 500  # pods per read; every page is read


def with_queued_listed(
    reads: ServingGateway, queues: KueueGateway, cluster: EksCluster, region: str, servers: list[DeploymentSummary]
) -> list[DeploymentSummary]:
    """The listed servers, each one Kueue holds Queued with its reason."""
    namespaces = sorted({server.namespace for server in servers if queueing.may_wait(server) and server.namespace})
    pods: list[queueing.Pod] = []

    def managed_pods() -> list[queueing.Pod]:
        labels = {MODEL_LABEL: None, queueing.MANAGED_LABEL: "true"}
        for namespace in namespaces:
            token: str | None = None
            while True:
                page = reads.select(cluster, region, "v1", "Pod", namespace, labels, PAGE, token)
                pods.extend(page.items)
                if not (token := page.next_token):
                    break
        return pods

    def workloads() -> list[QueuedWorkload]:
        held = sorted({pod["metadata"].get("namespace", "") for pod in pods if gated(pod)})
        return [workload for namespace in held for workload in queues.workloads(cluster, region, namespace)]

    return queueing.with_queued(servers, managed_pods, workloads)
