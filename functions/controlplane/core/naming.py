"""Deterministic names and ownership tags for everything the control plane creates, and the `Deployment` (name,
Region, partition) they are built from: IAM names start with the deployment's name, ownership tags carry its name
and Region, ARNs its partition.

Every name the control plane derives (AWS resources, IAM roles and policies, buckets, Kubernetes volumes,
workflow executions) is a function here, so a name is computed in one place and never re-spelled.
Fixed names that AWS or an add-on defines (namespaces, service accounts of operators) stay with the code
that uses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controlplane.models.features import Feature
    from controlplane.models.operations import OperationKind

# A deployment name keeps two control planes of one account apart (CDK context `deploymentName`, the functions'
# `deployment_name` setting): lowercase letters and digits, no hyphen, so that `<deployment>-<clusterTag>-…` names
# cannot be read two ways.
DEFAULT_DEPLOYMENT_NAME = "instantstart"
DEPLOYMENT_NAME_PATTERN = r"[a-z][a-z0-9]{2,11}"
CLUSTER_TAG_KEY = "instantstart:cluster"
# Who created a resource: the deployment's name, and the Region the deployment runs in (its resources may live in
# other Regions; IAM is global), so that two control planes of one account never touch each other's resources.
MANAGED_BY_KEY = "instantstart:managed-by"
DEPLOYMENT_REGION_KEY = "instantstart:deployment-region"
ROLE_TAG_KEY = "instantstart:role"
# The Kubernetes group of the API's jobs role in every cluster (its access entry; RBAC in `core.workload_access`).
JOB_WRITERS_GROUP = "instantstart:job-writers"
# The Kubernetes group of the API's view role: what its reads need beyond AmazonEKSViewPolicy (`core.workload_access`).
VIEWERS_GROUP = "instantstart:viewers"


@dataclass(frozen=True)
class Deployment:
    """This control plane: its name starts the IAM names it creates, its name and Region mark what it owns,
    and its partition (`aws`, `aws-cn`, `aws-us-gov`) starts every ARN it builds."""

    name: str
    region: str
    partition: str

    def owner_tags(self) -> dict[str, str]:
        return {MANAGED_BY_KEY: self.name, DEPLOYMENT_REGION_KEY: self.region}

    def managed_policy_arn(self, policy_name: str) -> str:
        """An AWS managed policy, e.g. `arn:aws-cn:iam::aws:policy/AmazonEKSClusterPolicy`."""
        return f"arn:{self.partition}:iam::aws:policy/{policy_name}"

    def policy_arn(self, account: str, policy_name: str) -> str:
        """A customer managed policy of the account."""
        return f"arn:{self.partition}:iam::{account}:policy/{policy_name}"

    def bucket_arn(self, bucket: str) -> str:
        """An S3 bucket (or a pattern of bucket names, `instantstart-demo-*`)."""
        return f"arn:{self.partition}:s3:::{bucket}"

    def role_arn(self, account: str, role_name: str) -> str:
        return f"arn:{self.partition}:iam::{account}:role/{role_name}"


# --- the deployment's own resources (the stack creates them; the sandbox, in its account, too)


def state_machine_name(deployment_name: str, kind: OperationKind) -> str:
    """Also names the machine's log group (`/aws/vendedlogs/states/<name>`)."""
    return f"{deployment_name}-{kind.value.replace('_', '-')}"


def kubernetes_role_name(deployment: Deployment) -> str:
    """The steps' Kubernetes identity (cluster admin). IAM is global: the Region keeps two deployments of one name
    in one account apart."""
    return f"{deployment.name}-kubernetes-access-{deployment.region}"


def kubernetes_view_role_name(deployment: Deployment) -> str:
    """The API's read-only Kubernetes identity (AmazonEKSViewPolicy on every cluster)."""
    return f"{deployment.name}-kubernetes-view-{deployment.region}"


def kubernetes_jobs_role_name(deployment: Deployment) -> str:
    """The API's Kubernetes identity for job writes (the job writers' group, whose RBAC allows job objects only)."""
    return f"{deployment.name}-kubernetes-jobs-{deployment.region}"


def event_forwarding_role_name(deployment: Deployment) -> str:
    """The role EventBridge assumes in other Regions to put their HyperPod events on this Region's default bus."""
    return f"{deployment.name}-event-forwarding-{deployment.region}"


def eks_cluster_name(cluster_tag: str) -> str:
    return f"eks-cluster-{cluster_tag}"


def eks_cluster_role_name(deployment: Deployment, cluster_tag: str) -> str:
    return f"{deployment.name}-{cluster_tag}-eks-cluster"


def resource_name(cluster_tag: str, role: str) -> str:
    """The Name tag of a network resource, e.g. `instantstart-demo-public-a`."""
    return f"instantstart-{cluster_tag}-{role}"


def ownership_tags(deployment: Deployment, cluster_tag: str) -> dict[str, str]:
    return {CLUSTER_TAG_KEY: cluster_tag, **deployment.owner_tags()}


def is_owned(deployment: Deployment, tags: dict[str, str], cluster_tag: str) -> bool:
    """Created by this deployment (name and Region) for this cluster; a resource without the tags is not ours."""
    return tags.get(CLUSTER_TAG_KEY) == cluster_tag and all(
        tags.get(key) == value for key, value in deployment.owner_tags().items()
    )


def owner(tags: dict[str, str]) -> str:
    """Whose a resource is, by its ownership tags: the sentence a refusal to touch it ends with."""
    if MANAGED_BY_KEY not in tags:
        return "It carries no InstantStart ownership tags."
    return (
        f"It belongs to deployment '{tags[MANAGED_BY_KEY]}' in Region {tags.get(DEPLOYMENT_REGION_KEY, '(none)')}"
        f" (cluster '{tags.get(CLUSTER_TAG_KEY, '(none)')}')."
    )


def event_forwarding_rule_name(deployment: Deployment) -> str:
    """The rule on another Region's default bus that sends HyperPod's events there to this deployment's Region."""
    return f"{deployment.name}-hyperpod-events-to-{deployment.region}"


def is_deployment_owned(deployment: Deployment, tags: dict[str, str]) -> bool:
    """Created by this deployment for all its clusters (a resource shared by clusters carries no cluster tag)."""
    return all(tags.get(key) == value for key, value in deployment.owner_tags().items())


def execution_name(operation_id: str, attempt: int) -> str:
    """Step Functions execution name of an operation's n-th run (resume starts a new run)."""
    return operation_id if attempt == 1 else f"{operation_id}-r{attempt}"


def hyperpod_cluster_name(cluster_tag: str) -> str:
    return f"hp-cluster-{cluster_tag}"


def hyperpod_execution_role_name(deployment: Deployment, cluster_tag: str) -> str:
    return f"{deployment.name}-{cluster_tag}-hyperpod-exec"


def training_operator_role_name(deployment: Deployment, cluster_tag: str) -> str:
    return f"{deployment.name}-{cluster_tag}-training-operator"


def lifecycle_bucket_name(cluster_tag: str, account: str, region: str) -> str:
    """`sagemaker-` prefix: HyperPod's instance policy reads lifecycle scripts only from such buckets."""
    return f"sagemaker-is-{cluster_tag}-{account}-{region}"


def subnet_key(role: str, index: int) -> str:
    """Stage 1's public and private subnets: `public-a`, `private-b`, … (index 0 is AZ `a`)."""
    return f"{role}-{'ab'[index]}"


def compute_subnet_key(availability_zone: str, group: str | None = None) -> str:
    """Shared compute subnet per AZ, or a group's dedicated one."""
    return f"compute-{availability_zone}" if group is None else f"compute-{availability_zone}-{group}"


def adoption_tags(cluster_tag: str) -> dict[str, str]:
    """What import puts on resources it adopts: the cluster tag without the managed-by marker (not ours to delete)."""
    return {CLUSTER_TAG_KEY: cluster_tag}


def hyperpod_cluster_of(cluster_tag: str, name: str | None) -> str:
    """An imported HyperPod cluster keeps its own name; the one stage 4 creates is hp-cluster-<tag>."""
    return name or hyperpod_cluster_name(cluster_tag)


def s3_csi_role_name(deployment: Deployment, cluster_tag: str) -> str:
    """The IRSA role of the Mountpoint for S3 CSI driver (stage 3), widened to the cluster's buckets by stage 5."""
    return f"{deployment.name}-{cluster_tag}-s3-csi"


# Inline policy of the S3 CSI driver's role that lists the buckets it may mount.
S3_CSI_POLICY_NAME = "s3-access"


def managed_bucket_pattern(cluster_tag: str) -> str:
    """Buckets the control plane creates for a cluster are named `instantstart-<tag>-…`."""
    return f"instantstart-{cluster_tag}-*"


def data_bucket_name(cluster_tag: str, account: str, region: str) -> str:
    """The bucket stage 5 creates when the caller names none (never deleted by the control plane)."""
    return f"instantstart-{cluster_tag}-{account}-{region}"


def persistent_volume_name(cluster_tag: str, claim: str) -> str:
    """The static PersistentVolume behind a claim stage 5 applies (S3 or FSx)."""
    return f"pv-{cluster_tag}-{claim}"


def fsx_tags(deployment: Deployment, cluster_tag: str, claim: str) -> dict[str, str]:
    """Ownership tags of the FSx file system behind one claim; the role tag tells claims apart."""
    return {**ownership_tags(deployment, cluster_tag), ROLE_TAG_KEY: f"fsx-{claim}"}


# --- features


FEATURE_TAG_KEY = "instantstart:feature"
# Kubernetes label keys cannot contain ':'; objects the features apply carry these labels instead of the tags.
MANAGED_LABEL = "app.kubernetes.io/managed-by"
MANAGED_LABEL_VALUE = "instantstart"
FEATURE_LABEL = "instantstart.aws/feature"
# The HyperpodNodeClass and NodePool of managed Karpenter, and the inline policy of its role.
KARPENTER_OBJECT_NAME = "instantstart"
KARPENTER_POLICY_NAME = "hyperpod-autoscaling"
TIERED_STORAGE_NAMESPACE = "default"
TIERED_STORAGE_SERVICE_ACCOUNT = "tiered-storage-sa"
# The ServiceAccount training jobs' pods run as (in the job namespace), and the inline policy of its role.
JOB_SERVICE_ACCOUNT = "instantstart-jobs"
JOB_ROLE_POLICY_NAME = "mlflow-tracking"
# Where jobs run when the cluster has no storage claim yet: the storage stage's default namespace.
DEFAULT_JOB_NAMESPACE = "default"


def feature_tags(deployment: Deployment, cluster_tag: str, feature: Feature) -> dict[str, str]:
    return {**ownership_tags(deployment, cluster_tag), FEATURE_TAG_KEY: feature.value}


def feature_labels(feature: Feature) -> dict[str, str]:
    """The labels that mark a Kubernetes object as one a feature applied."""
    return {MANAGED_LABEL: MANAGED_LABEL_VALUE, FEATURE_LABEL: feature.value}


def fsx_csi_role_name(deployment: Deployment, cluster_tag: str) -> str:
    return f"{deployment.name}-{cluster_tag}-fsx-csi"


def observability_role_name(deployment: Deployment, cluster_tag: str) -> str:
    return f"{deployment.name}-{cluster_tag}-observability"


def observability_workspace_alias(deployment: Deployment, cluster_tag: str) -> str:
    """The Amazon Managed Service for Prometheus workspace the observability feature creates for a cluster."""
    return f"{deployment.name}-{cluster_tag}-observability"


def inference_operator_role_name(deployment: Deployment, cluster_tag: str) -> str:
    return f"{deployment.name}-{cluster_tag}-inference"


def inference_tls_bucket_name(cluster_tag: str, account: str, region: str) -> str:
    """`hyperpod-tls-` prefix: AWS's inference policy grants the operator its certificate work on such buckets."""
    return f"hyperpod-tls-{cluster_tag}-{account}-{region}"


def karpenter_role_name(deployment: Deployment, cluster_tag: str) -> str:
    return f"{deployment.name}-{cluster_tag}-karpenter"


def tiered_storage_role_name(deployment: Deployment, cluster_tag: str) -> str:
    return f"{deployment.name}-{cluster_tag}-tiered-ckpt"


def tiered_storage_policy_name(deployment: Deployment, cluster_tag: str) -> str:
    return f"{deployment.name}-{cluster_tag}-tiered-ckpt"


def job_role_name(deployment: Deployment, cluster_tag: str) -> str:
    """The AWS role of training jobs' pods (the trainingOperator feature's), trusted for one ServiceAccount."""
    return f"{deployment.name}-{cluster_tag}-training-jobs"


def job_namespace(storage_claim: str | None) -> str:
    """Jobs run in the namespace of the cluster's storage claim (`<namespace>/<claim>`)."""
    namespace, _, _ = str(storage_claim or "").rpartition("/")
    return namespace or DEFAULT_JOB_NAMESPACE
