"""The cluster a model-server request targets: its record, its EKS control plane and the namespace servers run in
(the storage claim's, as for training jobs, so a server can read a job's output at /s3)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord

DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True)
class ServingTarget:
    record: ClusterRecord
    cluster: EksCluster
    namespace: str
    claim: str | None

    @property
    def region(self) -> str:
        return self.record.region


def resolve(clusters: ClusterService, eks: Callable[[str], EksGateway], cluster_tag: str) -> ServingTarget:
    record = clusters.get(cluster_tag)
    cluster = reachable_control_plane(eks(record.region), record.eksClusterName, cluster_tag)
    namespace, claim = DEFAULT_NAMESPACE, None
    if record.storageClaim:
        found_namespace, _, claim = record.storageClaim.rpartition("/")
        namespace = found_namespace or DEFAULT_NAMESPACE
    return ServingTarget(record, cluster, namespace, claim)
