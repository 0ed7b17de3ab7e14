"""Whole-cluster reads of each cluster from lists held in memory, handed out in pages of `page_size` (so a test sees
the core fold several pages; pods counted per page as the adapter counts them); pod pages filter like the API server
and page by position."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from controlplane.core.paging import Page, page_of
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import ClusterEvent, KubernetesNode, PodCounts, PodFacts


@dataclass
class ClusterContents:
    nodes: list[KubernetesNode] = field(default_factory=list)
    pods: list[PodFacts] = field(default_factory=list)
    events: list[ClusterEvent] = field(default_factory=list)


def _pages(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class InMemoryClusterReads:
    def __init__(self, page_size: int = 3) -> None:
        self.page_size = page_size
        self.clusters: dict[str, ClusterContents] = {}

    def contents(self, cluster_name: str) -> ClusterContents:
        return self.clusters.setdefault(cluster_name, ClusterContents())

    def node_pages(self, cluster: EksCluster, region: str) -> Iterator[list[KubernetesNode]]:
        return _pages(self.contents(cluster.name).nodes, self.page_size)

    def pod_counts(self, cluster: EksCluster, region: str) -> Iterator[PodCounts]:
        for page in _pages(self.contents(cluster.name).pods, self.page_size):
            by_phase: dict[str, int] = {}
            gpus: dict[tuple[str, str], int] = {}
            for pod in page:
                by_phase[pod.phase] = by_phase.get(pod.phase, 0) + 1
                if pod.node and pod.gpus:
                    gpus[(pod.node, pod.phase)] = gpus.get((pod.node, pod.phase), 0) + pod.gpus
            yield PodCounts(by_phase, gpus, [pod for pod in page if pod.phase == "Pending"])

    def warning_event_pages(self, cluster: EksCluster, region: str) -> Iterator[list[ClusterEvent]]:
        return _pages(self.contents(cluster.name).events, self.page_size)

    def pod_page(
        self,
        cluster: EksCluster,
        region: str,
        limit: int,
        token: str | None,
        namespace: str | None = None,
        phase: str | None = None,
        node: str | None = None,
    ) -> Page[PodFacts]:
        pods = sorted(self.contents(cluster.name).pods, key=lambda pod: (pod.namespace, pod.name))
        wanted = [
            pod
            for pod in pods
            if (namespace is None or pod.namespace == namespace)
            and (phase is None or pod.phase == phase)
            and (node is None or pod.node == node)
        ]
        return page_of(wanted, limit, token)
