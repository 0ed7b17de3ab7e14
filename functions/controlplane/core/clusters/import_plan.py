"""Whether an existing cluster can be adopted, and what import does to it. Pure functions of what the caller
asked and what EKS, SageMaker and the registry report; each refusal says what to change.

The control plane's functions run outside any VPC, with no fixed egress address: they reach a cluster's Kubernetes
API only through a public endpoint open to every address. A private-only endpoint, or public CIDRs that leave any
address out, would let the import start and then time out at its first Kubernetes call; pre-flight refuses it.
"""

from __future__ import annotations

from controlplane.core.naming import CLUSTER_TAG_KEY
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.models.clusters import ImportClusterRequest, PlannedAction
from controlplane.models.errors import ClusterExistsError, ClusterNotReadyError, InvalidRequestError
from controlplane.models.preflight import PreflightCheck

ACCESS_ENTRY_MODES = ("API", "API_AND_CONFIG_MAP")
ANY_ADDRESS = "0.0.0.0/0"
ENDPOINT_CHECK = "network: the EKS API endpoint is reachable from the control plane (outside any VPC)"
OPEN_ENDPOINT = (
    "aws eks update-cluster-config --name {name} --region {region} --resources-vpc-config "
    "endpointPublicAccess=true,endpointPrivateAccess=true,publicAccessCidrs=0.0.0.0/0"
)


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


def endpoint_check(request: ImportClusterRequest, cluster: EksCluster) -> PreflightCheck:
    """The endpoint is public and admits every address: the control plane has no fixed address to admit."""
    update = OPEN_ENDPOINT.format(name=cluster.name, region=request.region)
    alternative = (
        "The control plane cannot run its functions inside your VPC, so a cluster that must stay private cannot be "
        "imported."
    )
    if not cluster.endpoint_public_access:
        fix = (
            f"EKS cluster {cluster.name} has endpointPublicAccess false (a private endpoint only): enable public "
            f"endpoint access for 0.0.0.0/0, keeping private access for the nodes ({update}; requests to the API "
            f"still need an access entry), wait until the cluster is ACTIVE again, then import it. {alternative}"
        )
    elif ANY_ADDRESS not in cluster.public_access_cidrs:
        fix = (
            f"EKS cluster {cluster.name} admits only publicAccessCidrs {', '.join(cluster.public_access_cidrs)} to its "
            "public endpoint, and the control plane's functions have no fixed egress address to add: set "
            f"publicAccessCidrs to 0.0.0.0/0 ({update}), wait until the cluster is ACTIVE again, then import it. "
            f"{alternative}"
        )
    else:
        return PreflightCheck(check=ENDPOINT_CHECK, status="pass")
    return PreflightCheck(check=ENDPOINT_CHECK, status="fail", fix=fix)


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
