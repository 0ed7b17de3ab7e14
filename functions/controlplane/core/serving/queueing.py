"""Why a team's model server waits: Kueue admits its pods one by one (its `deployment` integration: each pod is
created with the scheduling gate `kueue.x-k8s.io/admission` and has its own Workload, owned by the pod, until Kueue
admits it). A server with a gated pod is Queued, with the reason of that pod's Workload (`KueueGateway`), worded as a
queued job's (`core.training.queueing.waiting_reason`). Only team servers that are not Ready cost a read; RBAC
refusing the Workloads leaves the server Queued with that refusal as its reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from controlplane.core.ports.queues import KueueReadRefusedError, QueuedWorkload
from controlplane.core.serving.manifest import MODEL_LABEL, gated
from controlplane.core.training.queueing import waiting_reason
from controlplane.models.governance import TEAM_NAMESPACE_PREFIX
from controlplane.models.serving import DeploymentSummary

# Kueue labels every pod it manages [src: kubernetes-sigs/kueue pkg/constants ManagedByKueueLabelKey].
MANAGED_LABEL = "kueue.x-k8s.io/managed"

Pod = dict[str, Any]


def may_wait(server: DeploymentSummary) -> bool:
    """Whether Kueue may hold the server's pods: a team's server that is still Loading."""
    return server.status == "Loading" and (server.namespace or "").startswith(TEAM_NAMESPACE_PREFIX)


def with_queued(
    servers: list[DeploymentSummary], pods: Callable[[], Iterable[Pod]], workloads: Callable[[], list[QueuedWorkload]]
) -> list[DeploymentSummary]:
    """The servers, each with a pod Kueue holds Queued with its reason (`pods`: the team servers' pods, read only
    when a server may wait; `workloads` only when a pod is gated)."""
    if not any(may_wait(server) for server in servers):
        return servers
    waiting: dict[tuple[str, str], str] = {}  # (namespace, server) → its first gated pod
    for pod in filter(gated, pods()):
        meta = pod["metadata"]
        waiting.setdefault((meta.get("namespace", ""), (meta.get("labels") or {}).get(MODEL_LABEL, "")), meta["name"])
    if not waiting:
        return servers
    unknown: str | None = None
    try:
        found = {(w.namespace, w.job_name): w for w in workloads() if w.job_kind == "Pod" and not w.finished}
    except KueueReadRefusedError as refused:
        found = {}
        unknown = (
            f"Kueue holds its pods; why is unknown: the cluster's RBAC refuses the view role Kueue's {refused} (403); "
            f"{KueueReadRefusedError.REMEDY}."
        )
    return [
        server.model_copy(
            update={
                "status": "Queued",
                "waitingReason": unknown or waiting_reason(found.get((server.namespace or "", held))),
            }
        )
        if may_wait(server) and (held := waiting.get((server.namespace or "", server.name)))
        else server
        for server in servers
    ]
