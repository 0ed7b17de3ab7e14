"""The cluster a model-server request targets: its record, its EKS control plane and the namespace servers run in
(the storage claim's, as for training jobs, so a server can read a job's output at /s3)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import ClusterNotReadyError

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
    cluster = eks(record.region).find_cluster(record.eksClusterName)
    if cluster is None or not cluster.endpoint:
        raise ClusterNotReadyError(f"Cluster '{cluster_tag}' has no reachable EKS control plane.")
    namespace, claim = DEFAULT_NAMESPACE, None
    if record.storageClaim:
        found_namespace, _, claim = record.storageClaim.rpartition("/")
        namespace = found_namespace or DEFAULT_NAMESPACE
    return ServingTarget(record, cluster, namespace, claim)
