"""Kueue's ClusterQueues and Workloads through the official client's CustomObjectsApi, read as raw JSON in pages.
A cluster without Kueue's CRDs answers 404, read as no queues and no workloads; RBAC refusing the reader the kind
(403, which the view role's client raises as the cluster's typed ClusterAccessDeniedError) is KueueReadRefusedError,
so that the views that degrade on it hold for every role."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from controlplane.adapters.k8s.client import KubernetesClientFactory, raw_pages
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.queues import (
    API_GROUP,
    API_VERSION,
    CLUSTER_QUEUES,
    WORKLOADS,
    ClusterQueueUse,
    KueueReadRefusedError,
    QueuedWorkload,
    ResourceUse,
)
from controlplane.models.errors import ClusterAccessDeniedError


def cluster_queue(raw: dict[str, Any]) -> ClusterQueueUse:
    status = raw.get("status") or {}
    usage = tuple(
        ResourceUse(
            flavor["name"], resource["name"], str(resource.get("total", "0")), str(resource.get("borrowed", "0"))
        )
        for flavor in status.get("flavorsUsage") or []
        for resource in flavor.get("resources") or []
    )
    return ClusterQueueUse(
        name=raw["metadata"]["name"],
        usage=usage,
        admitted=int(status.get("admittedWorkloads") or 0),
        pending=int(status.get("pendingWorkloads") or 0),
    )


def workload(raw: dict[str, Any]) -> QueuedWorkload:
    meta, spec, status = raw["metadata"], raw.get("spec") or {}, raw.get("status") or {}
    held = {c["type"]: c for c in status.get("conditions") or [] if c.get("status") == "True"}
    reserved = next((c for c in status.get("conditions") or [] if c["type"] == "QuotaReserved"), None)
    owner: dict[str, Any] = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), {})
    waiting = reserved is not None and reserved.get("status") != "True"
    return QueuedWorkload(
        name=meta["name"],
        namespace=meta["namespace"],
        job_kind=owner.get("kind", ""),
        job_name=owner.get("name", ""),
        queue=spec.get("queueName", ""),
        priority_class=spec.get("priorityClassName"),
        admitted="Admitted" in held,
        finished="Finished" in held,
        reason=reserved.get("reason") if waiting and reserved else None,
        message=reserved.get("message") if waiting and reserved else None,
        created_at=meta.get("creationTimestamp"),
    )


class KubernetesKueueGateway:
    def __init__(self, factory: KubernetesClientFactory) -> None:
        self._factory = factory

    def cluster_queues(self, cluster: EksCluster, region: str) -> list[ClusterQueueUse]:
        from kubernetes import client as k8s

        with self._factory.api_client(cluster, region) as api:
            listed = k8s.CustomObjectsApi(api).list_cluster_custom_object
            return [
                cluster_queue(raw)
                for raw in _served(listed, group=API_GROUP, version=API_VERSION, plural=CLUSTER_QUEUES)
            ]

    def workloads(self, cluster: EksCluster, region: str, namespace: str | None = None) -> list[QueuedWorkload]:
        from kubernetes import client as k8s

        with self._factory.api_client(cluster, region) as api:
            objects = k8s.CustomObjectsApi(api)
            scope: dict[str, str] = {"group": API_GROUP, "version": API_VERSION, "plural": WORKLOADS}
            if namespace is None:
                found = _served(objects.list_cluster_custom_object, **scope)
            else:
                found = _served(objects.list_namespaced_custom_object, namespace=namespace, **scope)
            return sorted((workload(raw) for raw in found), key=lambda w: (w.created_at or "", w.name))


def _served(list_call: Callable[..., Any], **selectors: str) -> Iterator[dict[str, Any]]:
    """The items of a list of Kueue's objects; none when the cluster does not serve the kind."""
    from kubernetes.client.exceptions import ApiException

    kind = f"{selectors['plural']}.{API_GROUP}"
    try:
        yield from raw_pages(list_call, **selectors)
    except ClusterAccessDeniedError as refused:
        if refused.details.get("status") != 403:
            raise
        raise KueueReadRefusedError(f"{kind}: Forbidden") from refused
    except ApiException as error:
        if error.status == 403:
            raise KueueReadRefusedError(f"{kind}: {error.reason}") from None
        if error.status != 404:
            raise
