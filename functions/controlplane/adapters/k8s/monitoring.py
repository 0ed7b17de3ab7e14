"""Whole-cluster reads for monitoring through the official client: nodes and Warning events streamed as raw JSON pages
and translated item by item, pods streamed as raw pages decoded into the few fields monitoring reads and counted page by
page (`pod_pages`: no record per pod, only the pending ones kept), never typed client objects nor a whole list held;
and one page of pods with Kubernetes' own continue token."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from controlplane.adapters.k8s.client import KubernetesClientFactory, kubernetes_node, raw_list_pages
from controlplane.adapters.k8s.paging import continuing
from controlplane.adapters.k8s.pod_pages import pod_counts_of, pod_facts, pod_list
from controlplane.core.paging import Page
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import ClusterEvent, KubernetesNode, PodCounts, PodFacts

# Items per page of a streamed read: few round trips, while a page's JSON stays a few megabytes.
STREAM_PAGE_SIZE = 5000


def cluster_event(raw: dict[str, Any]) -> ClusterEvent:
    involved = raw.get("involvedObject") or {}
    metadata = raw.get("metadata") or {}
    return ClusterEvent(
        namespace=involved.get("namespace") or metadata.get("namespace"),
        object=f"{involved.get('kind') or '?'}/{involved.get('name') or '?'}",
        reason=raw.get("reason"),
        message=raw.get("message"),
        at=raw.get("lastTimestamp") or raw.get("eventTime") or metadata.get("creationTimestamp"),
        count=int(raw.get("count") or 1),
        uid=metadata.get("uid"),
        node=involved.get("name") if involved.get("kind") == "Node" else (raw.get("source") or {}).get("host"),
    )


class KubernetesClusterReads:
    def __init__(self, factory: KubernetesClientFactory) -> None:
        self._factory = factory

    def node_pages(self, cluster: EksCluster, region: str) -> Iterator[list[KubernetesNode]]:
        from kubernetes import client as k8s

        with self._factory.api_client(cluster, region) as api:
            for items, _ in raw_list_pages(k8s.CoreV1Api(api).list_node, STREAM_PAGE_SIZE):
                yield [kubernetes_node(raw) for raw in items]

    def pod_counts(self, cluster: EksCluster, region: str) -> Iterator[PodCounts]:
        from kubernetes import client as k8s

        with self._factory.api_client(cluster, region) as api:
            list_pods = k8s.CoreV1Api(api).list_pod_for_all_namespaces
            token = None
            while True:
                paging = {"limit": STREAM_PAGE_SIZE, **({"_continue": token} if token else {})}
                page = pod_list(list_pods(**paging, _preload_content=False).data)
                yield pod_counts_of(page.items or [])
                token = page.continue_token
                if not token:
                    return

    def warning_event_pages(self, cluster: EksCluster, region: str) -> Iterator[list[ClusterEvent]]:
        from kubernetes import client as k8s

        with self._factory.api_client(cluster, region) as api:
            list_events = k8s.CoreV1Api(api).list_event_for_all_namespaces
            for items, _ in raw_list_pages(list_events, STREAM_PAGE_SIZE, field_selector="type=Warning"):
                yield [cluster_event(raw) for raw in items]

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
        from kubernetes import client as k8s

        fields = ",".join([*([f"status.phase={phase}"] if phase else []), *([f"spec.nodeName={node}"] if node else [])])
        paging: dict[str, Any] = {"limit": limit, "field_selector": fields, **({"_continue": token} if token else {})}
        with self._factory.api_client(cluster, region) as api:
            core = k8s.CoreV1Api(api)
            with continuing(token):
                if namespace:
                    response = core.list_namespaced_pod(namespace, _preload_content=False, **paging)
                else:
                    response = core.list_pod_for_all_namespaces(_preload_content=False, **paging)
        page = pod_list(response.data)
        return Page([pod_facts(pod) for pod in page.items or []], page.continue_token)
