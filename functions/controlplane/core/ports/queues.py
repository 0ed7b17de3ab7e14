"""Kueue's state in a cluster (kueue.x-k8s.io/v1beta1), as task governance leaves it: each team's ClusterQueue with
what its admitted work uses, and the Workloads Kueue keeps for queued jobs, admitted or waiting with its reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from controlplane.core.ports.eks import EksCluster

API_GROUP, API_VERSION = "kueue.x-k8s.io", "v1beta1"
CLUSTER_QUEUES, WORKLOADS = "clusterqueues", "workloads"


@dataclass(frozen=True)
class ResourceUse:
    """What a queue's admitted workloads use of one resource in one flavor (an instance type), and how much of that
    is borrowed from the cohort; Kubernetes quantities as Kueue writes them."""

    flavor: str
    resource: str
    total: str
    borrowed: str


@dataclass(frozen=True)
class ClusterQueueUse:
    name: str
    usage: tuple[ResourceUse, ...]
    admitted: int
    pending: int


@dataclass(frozen=True)
class QueuedWorkload:
    """A job's Workload: `admitted`, else why it waits (its QuotaReserved condition's reason and message)."""

    name: str
    namespace: str
    job_kind: str
    job_name: str
    queue: str
    priority_class: str | None
    admitted: bool
    finished: bool
    reason: str | None
    message: str | None
    created_at: str | None


class KueueReadRefusedError(Exception):
    """The cluster's RBAC refuses the reader a Kueue kind (403); the message names the kind and the API server's
    reason."""

    REMEDY = (
        "the view role's access entry needs the Kubernetes group instantstart:viewers and its ClusterRole "
        "instantstart-view-reader: POST /clusters/{clusterTag}/access restores them (stage 1's Ensure Access Entry)"
    )


class KueueGateway(Protocol):
    def cluster_queues(self, cluster: EksCluster, region: str) -> list[ClusterQueueUse]:
        """Every ClusterQueue with its usage (none when Kueue is not installed); KueueReadRefusedError on a 403."""
        ...

    def workloads(self, cluster: EksCluster, region: str, namespace: str | None = None) -> list[QueuedWorkload]:
        """The Workloads of a namespace (None: of every namespace), oldest first (none without Kueue);
        KueueReadRefusedError on a 403."""
        ...
