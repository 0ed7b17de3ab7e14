"""Whether an existing cluster can be adopted, and what import does to it. Pure functions of what the caller
asked and what EKS, SageMaker and the registry report; each refusal says what to change."""

from __future__ import annotations

from controlplane.core.naming import CLUSTER_TAG_KEY
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.models.clusters import ImportClusterRequest, PlannedAction
from controlplane.models.errors import ClusterExistsError, ClusterNotReadyError, InvalidRequestError

ACCESS_ENTRY_MODES = ("API", "API_AND_CONFIG_MAP")


def check_eks_importable(request: ImportClusterRequest, cluster: EksCluster | None) -> EksCluster:
    """The EKS cluster exists, is ACTIVE and allows access entries."""
    if cluster is None:
        raise InvalidRequestError(
            f"No EKS cluster named '{request.eksClusterName}' in {request.region}; check the name and Region "
            "(aws eks list-clusters lists them).",
            {"eksClusterName": request.eksClusterName},
        )
    if cluster.status != "ACTIVE":
        raise ClusterNotReadyError(
            f"EKS cluster {cluster.name} is {cluster.status}; import it once it is ACTIVE.",
            {"status": cluster.status},
        )
    if cluster.authentication_mode not in ACCESS_ENTRY_MODES:
        raise InvalidRequestError(
            f"EKS cluster {cluster.name} uses authenticationMode {cluster.authentication_mode or 'CONFIG_MAP'}, "
            "which has no access entries (HyperPod needs them too). Switch it to API_AND_CONFIG_MAP "
            "(EKS UpdateClusterConfig accessConfig.authenticationMode), then import again.",
            {"authenticationMode": cluster.authentication_mode},
        )
    return cluster


def check_unregistered(cluster: EksCluster, owner: str | None) -> None:
    """`owner`: the tag the EKS cluster is registered under (its own tag says, or the registry), if any."""
    if owner is not None:
        raise ClusterExistsError(
            f"EKS cluster {cluster.name} is already registered as '{owner}'; use that clusterTag.",
            {"clusterTag": owner},
        )


def check_hyperpod_importable(
    request: ImportClusterRequest, cluster: EksCluster, hyperpod: HyperPodCluster | None
) -> HyperPodCluster:
    """The named HyperPod cluster exists, runs on this EKS cluster and is InService."""
    if hyperpod is None:
        raise InvalidRequestError(
            f"No HyperPod cluster named '{request.hyperPodClusterName}' in {request.region}; omit "
            "hyperPodClusterName to import the EKS cluster alone.",
            {"hyperPodClusterName": request.hyperPodClusterName},
        )
    if hyperpod.eks_cluster_arn != cluster.arn:
        raise InvalidRequestError(
            f"HyperPod cluster {hyperpod.name} is orchestrated by {hyperpod.eks_cluster_arn or 'no EKS cluster'}, "
            f"not by {cluster.arn}; name the HyperPod cluster that runs on this EKS cluster.",
            {"orchestrator": hyperpod.eks_cluster_arn},
        )
    if hyperpod.status != "InService":
        raise ClusterNotReadyError(
            f"HyperPod cluster {hyperpod.name} is {hyperpod.status}; import once it is InService.",
            {"status": hyperpod.status},
        )
    return hyperpod


def import_actions(cluster_tag: str, cluster: EksCluster, hyperpod: HyperPodCluster | None) -> list[PlannedAction]:
    """Everything adopted is kept; the only thing import may create is the control plane's access entry."""
    actions = [
        PlannedAction(
            action="keep",
            resource="AWS::EKS::Cluster",
            name=cluster.name,
            detail=f"adopted, tagged {CLUSTER_TAG_KEY}={cluster_tag}; never deleted by the control plane",
        ),
        PlannedAction(action="keep", resource="AWS::EC2::VPC", name=cluster.vpc_id or "the cluster's VPC"),
    ]
    if hyperpod is not None:
        actions.append(PlannedAction(action="keep", resource="AWS::SageMaker::Cluster", name=hyperpod.name))
    actions.append(
        PlannedAction(
            action="create",
            resource="AWS::EKS::AccessEntry",
            name="control-plane role",
            detail="only if missing; AmazonEKSClusterAdminPolicy, cluster scope; removed on delete",
        )
    )
    return actions
