"""The cluster a model-server request targets: its record, its EKS control plane and the namespace servers run in
(the storage claim's, as for training jobs, so a server can read a job's output at /s3; or a team's, `team_targets`),
and where a server of a given name is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.serving import ServingGateway
from controlplane.core.registry import ClusterService
from controlplane.core.serving.manifest import DEPLOYMENT_API, MODEL_LABEL
from controlplane.core.team_targets import workload_namespace
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


def find_server(reads: ServingGateway, target: ServingTarget, name: str) -> tuple[ServingTarget, dict[str, Any]] | None:
    """The model server `name` (its Deployment) in the claim's namespace or a team's, with the target moved there."""
    labels: dict[str, str | None] = {MODEL_LABEL: name}
    page = reads.select(target.cluster, target.region, DEPLOYMENT_API, "Deployment", None, labels, 10, None)
    for found in page.items:
        namespace = found["metadata"].get("namespace")
        if found["metadata"]["name"] == name and workload_namespace(namespace, target.namespace):
            return replace(target, namespace=namespace), found
    return None
