"""An in-memory KueueGateway: the ClusterQueues and Workloads a test sets, per EKS cluster name."""

from __future__ import annotations

from collections import defaultdict

from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.queues import ClusterQueueUse, QueuedWorkload


class InMemoryKueueGateway:
    def __init__(self) -> None:
        self.queues: dict[str, list[ClusterQueueUse]] = defaultdict(list)
        self.workload_list: dict[str, list[QueuedWorkload]] = defaultdict(list)
        self.reads = 0
        # The namespace each Workloads read asked for (None: every namespace).
        self.asked: list[str | None] = []
        # Raised by every read (the cluster's RBAC refusing Kueue's kinds).
        self.refusal: Exception | None = None

    def cluster_queues(self, cluster: EksCluster, region: str) -> list[ClusterQueueUse]:
        if self.refusal is not None:
            raise self.refusal
        return list(self.queues[cluster.name])

    def workloads(self, cluster: EksCluster, region: str, namespace: str | None = None) -> list[QueuedWorkload]:
        self.reads += 1
        self.asked.append(namespace)
        if self.refusal is not None:
            raise self.refusal
        return [w for w in self.workload_list[cluster.name] if namespace in (None, w.namespace)]
