"""A cluster's reachable EKS control plane: what a service needs before it talks to the cluster's Kubernetes API
(jobs, endpoints, model servers, downloads, monitoring), and the one refusal while there is none."""

from __future__ import annotations

from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.models.errors import ClusterNotReadyError


def reachable_control_plane(
    eks: EksGateway, eks_cluster_name: str, cluster_tag: str, *, active: bool = False
) -> EksCluster:
    """The EKS cluster `eks_cluster_name` of cluster `cluster_tag` once it serves an API endpoint (and, with
    `active`, is ACTIVE: not updating or being deleted); ClusterNotReadyError (409) naming its status otherwise."""
    cluster = eks.find_cluster(eks_cluster_name)
    if cluster is None or not cluster.endpoint or (active and cluster.status != "ACTIVE"):
        raise ClusterNotReadyError(
            f"Cluster '{cluster_tag}' has no reachable EKS control plane yet (status "
            f"{cluster.status if cluster else 'absent'}); GET /clusters/{cluster_tag} shows its stages.",
        )
    return cluster
