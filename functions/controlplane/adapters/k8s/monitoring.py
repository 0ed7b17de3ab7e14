"""Whole-cluster reads for monitoring through the official client: nodes and Warning events streamed as raw JSON pages
and translated item by item, pods streamed and counted page by page in one tight loop (`pod_counts_of`: no record per
pod, only the pending ones kept), never typed client objects nor a whole list held; and one page of pods with
Kubernetes' own continue token."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from controlplane.adapters.k8s.client import KubernetesClientFactory, kubernetes_node, raw_list_pages
from controlplane.adapters.k8s.paging import continuing
from controlplane.core.paging import Page
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import ClusterEvent, KubernetesNode, PodCounts, PodFacts
from controlplane.models.status import GPU_RESOURCE

# Items per page of a streamed read: few round trips, while a page's JSON stays a few megabytes.
STREAM_PAGE_SIZE = 5000
PENDING = "Pending"


def _gpus(container: dict[str, Any]) -> int:
    """The GPUs a container asks for: its request, else its limit (Kubernetes defaults one to the other)."""
    resources = container.get("resources")
    if not resources:
        return 0
    requests, limits = resources.get("requests"), resources.get("limits")
    asked = (requests and requests.get(GPU_RESOURCE)) or (limits and limits.get(GPU_RESOURCE))
    if not asked:
        return 0
    try:
        return int(asked)
    except ValueError:
        return 0


def pod_counts_of(items: list[dict[str, Any]]) -> PodCounts:
    """A page of raw pods counted in one pass over the few fields the overview needs: the phase, the node and the
    GPUs the containers ask for; only a pending pod becomes a record. This loop runs once per pod of the cluster (the
    overview's hot path): each field is read once, and a container that asks for no GPU costs two lookups."""
    by_phase: dict[str, int] = {}
    gpus: dict[tuple[str, str], int] = {}
    pending = []
    for raw in items:
        status = raw.get("status")
        phase = (status and status.get("phase")) or PENDING
        by_phase[phase] = by_phase.get(phase, 0) + 1
        spec = raw.get("spec") or {}
        node = spec.get("nodeName")
        if node:
            asked = 0
            for container in spec.get("containers") or ():
                resources = container.get("resources")
                if resources and (
                    GPU_RESOURCE in (resources.get("requests") or ()) or GPU_RESOURCE in (resources.get("limits") or ())
                ):
                    asked += _gpus(container)
            if asked:
                gpus[(node, phase)] = gpus.get((node, phase), 0) + asked
        if phase == PENDING:
            pending.append(pod_facts(raw))
    return PodCounts(by_phase, gpus, pending)


def _waiting(status: dict[str, Any]) -> tuple[str | None, str | None]:
    """Why a pod is not running: the scheduler's condition, else the first waiting container's reason."""
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
            return condition.get("reason") or "Unschedulable", condition.get("message")
    for container in [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]:
        waiting = (container.get("state") or {}).get("waiting")
        if waiting and waiting.get("reason"):
            return waiting["reason"], waiting.get("message")
    return None, None


def pod_facts(raw: dict[str, Any]) -> PodFacts:
    metadata, spec, status = raw["metadata"], raw.get("spec") or {}, raw.get("status") or {}
    phase = status.get("phase") or PENDING
    reason, message = _waiting(status) if phase != "Running" else (None, None)
    return PodFacts(
        namespace=metadata.get("namespace") or "",
        name=metadata["name"],
        node=spec.get("nodeName"),
        phase=phase,
        gpus=sum(_gpus(container) for container in spec.get("containers") or []),
        restarts=sum(int(c.get("restartCount") or 0) for c in status.get("containerStatuses") or []),
        created_at=metadata.get("creationTimestamp"),
        waiting_reason=reason,
        waiting_message=message,
    )


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
            for items, _ in raw_list_pages(k8s.CoreV1Api(api).list_pod_for_all_namespaces, STREAM_PAGE_SIZE):
                yield pod_counts_of(items)

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
        body = json.loads(response.data)
        next_token = (body.get("metadata") or {}).get("continue") or None
        return Page([pod_facts(raw) for raw in body.get("items") or []], next_token)
