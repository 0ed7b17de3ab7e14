"""The model pool: warm workers (pods of a pool deployment labelled `business=unassigned`) bound to a service by
relabelling and returned to the pool the same way, so a worker keeps its pod (and its loaded weights).

Rules: a worker binds only to a service of its own model (the Service is created on first bind); a bound worker
is the last pod its ReplicaSet removes, and scaling a pool deployment below its bound workers is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, WorkloadGateway
from controlplane.core.ports.serving import ServingGateway
from controlplane.core.registry import ClusterService
from controlplane.core.serving import manifest
from controlplane.core.serving.manifest import (
    BOUND_DELETION_COST,
    BUSINESS_LABEL,
    DELETION_COST_ANNOTATION,
    DEPLOYMENT_API,
    MODEL_LABEL,
    SERVICE_API,
    UNASSIGNED,
)
from controlplane.core.serving.target import ServingTarget, resolve
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.errors import ConflictError, InvalidRequestError, NotFoundError
from controlplane.models.serving import ModelPool, PoolActionRequest, PoolActionResult, PoolWorker


class PoolWorkerNotFoundError(NotFoundError):
    code = "PoolWorkerNotFound"


class ServiceBindingError(ConflictError):
    code = "ServiceBinding"


def bound(pods: list[dict[str, Any]]) -> list[str]:
    """The names of the pods bound to a service."""
    return [
        pod["metadata"]["name"]
        for pod in pods
        if (pod["metadata"].get("labels") or {}).get(BUSINESS_LABEL, UNASSIGNED) != UNASSIGNED
    ]


def check_scale_in(deployment: str, replicas: int, pods: list[dict[str, Any]]) -> None:
    """Scaling in never removes a bound worker: refused below the number of bound workers."""
    taken = bound(pods)
    if replicas < len(taken):
        raise InvalidRequestError(
            f"Cannot scale '{deployment}' to {replicas}: {len(taken)} of its workers are bound to services "
            f"({', '.join(sorted(taken))}). Unbind workers first (POST /clusters/{{clusterTag}}/model-pool "
            f'{{"action": "unbind", "worker": …}}) or keep at least {len(taken)} replicas.',
            {"boundWorkers": sorted(taken)},
        )


def _worker(pod: dict[str, Any]) -> PoolWorker:
    labels = pod["metadata"].get("labels") or {}
    business = labels.get(BUSINESS_LABEL, UNASSIGNED)
    return PoolWorker(
        pod=pod["metadata"]["name"],
        uid=pod["metadata"].get("uid", ""),
        model=labels.get(MODEL_LABEL, ""),
        service=None if business == UNASSIGNED else business,
        ready=manifest.pod_ready(pod),
        node=(pod.get("spec") or {}).get("nodeName"),
    )


class ModelPoolService:
    def __init__(
        self,
        clusters: ClusterService,
        eks: Callable[[str], EksGateway],
        objects: KubernetesGateway,
        reads: ServingGateway,
        writes: ServingGateway,
        creates: WorkloadGateway,
    ) -> None:
        self._clusters = clusters
        self._eks = eks
        self._objects = objects
        self._reads = reads
        self._writes = writes
        self._creates = creates

    def workers(self, cluster_tag: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None) -> ModelPool:
        """A page of the pool's workers: each with its model and the service it is bound to (None: unassigned)."""
        target = resolve(self._clusters, self._eks, cluster_tag)
        labels = {MODEL_LABEL: None, BUSINESS_LABEL: None}
        page = self._reads.select(target.cluster, target.region, "v1", "Pod", target.namespace, labels, limit, token)
        return ModelPool(
            clusterTag=cluster_tag, workers=[_worker(pod) for pod in page.items], continue_=page.next_token
        )

    def act(self, cluster_tag: str, request: PoolActionRequest) -> PoolActionResult:
        target = resolve(self._clusters, self._eks, cluster_tag)
        pod = self._pool_pod(target, request.worker)
        model = pod["metadata"]["labels"][MODEL_LABEL]
        if request.action == "unbind":
            labels = {BUSINESS_LABEL: UNASSIGNED}
            annotations: dict[str, str | None] = {DELETION_COST_ANNOTATION: None}
            message = f"Worker {request.worker} is back in the pool of '{model}' (business={UNASSIGNED})."
        else:
            service = str(request.service)
            self._ensure_binding(target, service, model, request.serviceType == "external")
            labels = {BUSINESS_LABEL: service}
            annotations = {DELETION_COST_ANNOTATION: BOUND_DELETION_COST}
            message = f"Worker {request.worker} of '{model}' now serves '{service}' (business={service})."
        patch = {"metadata": {"labels": labels, "annotations": annotations}}
        after = self._writes.patch(target.cluster, target.region, "v1", "Pod", target.namespace, request.worker, patch)
        if after is None:
            raise _worker_not_found(request.worker)
        return PoolActionResult(worker=_worker(after), message=message)

    def _pool_pod(self, target: ServingTarget, name: str) -> dict[str, Any]:
        pod = self._objects.get(target.cluster, target.region, "v1", "Pod", name, target.namespace)
        if pod is None:
            raise _worker_not_found(name)
        labels = pod["metadata"].get("labels") or {}
        if MODEL_LABEL not in labels or BUSINESS_LABEL not in labels:
            raise InvalidRequestError(
                f"Pod '{name}' is not a model pool worker; GET /clusters/{target.record.clusterTag}/model-pool "
                "lists the workers (deploy with serviceType pool to add some)."
            )
        return pod

    def _ensure_binding(self, target: ServingTarget, service: str, model: str, external: bool) -> None:
        """The binding Service exists and selects the model's workers bound to it (created on first bind)."""
        found = self._objects.get(target.cluster, target.region, SERVICE_API, "Service", service, target.namespace)
        if found is not None:
            selector = (found.get("spec") or {}).get("selector") or {}
            if selector != {MODEL_LABEL: model, BUSINESS_LABEL: service}:
                raise ServiceBindingError(
                    f"Service '{service}' exists and does not serve pool workers of '{model}'; bind to another "
                    "service name.",
                )
            return
        server = self._objects.get(target.cluster, target.region, DEPLOYMENT_API, "Deployment", model, target.namespace)
        port = int(manifest.settings(server or {}).get("port") or 0)
        if server is None or not port:
            raise ServiceBindingError(f"The pool deployment '{model}' is gone; its workers cannot be bound.")
        binding = manifest.service(service, target.namespace, model, port, external, bound=True)
        self._creates.create(target.cluster, target.region, binding)


def _worker_not_found(name: str) -> PoolWorkerNotFoundError:
    return PoolWorkerNotFoundError(
        f"No pool worker named '{name}'; GET /clusters/{{clusterTag}}/model-pool lists the workers."
    )
