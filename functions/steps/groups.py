"""The Lambda functions that serve the steps: one function, one IAM role and one log group per group, the role
holding exactly the union of its steps' grants. A step names its group in its declaration; the groups' members are
collected from there (`infra.access.steps`).

Steps share a group only when that union stays least privilege: the same resource family acted on in the same
direction (create or remove), plus the read-only checks whose reads are already among the group's grants. Every
advanced feature is a group of its own (its ensure and remove steps). The steps that reach the Kubernetes API are
grouped apart, so that the Kubernetes access role trusts only functions that need it. The README explains the choice.
"""

from __future__ import annotations

from controlplane.models.features import Feature
from steps.step import Group

# EC2: the VPC and its children, created under the ownership tag (stage 1, and stage 4's compute subnet).
NETWORK = Group("network")
# EC2: the same resources deleted, only while they carry the ownership tag.
NETWORK_REMOVAL = Group("network_removal")
# EKS: the cluster role, the cluster and the control plane's access entry; the check reads the cluster.
EKS_CLUSTER = Group("eks_cluster")
EKS_CLUSTER_REMOVAL = Group("eks_cluster_removal")
# The Kubernetes API through the access role, plus the AWS reads that locate the cluster and its stages.
KUBERNETES = Group("kubernetes")
# Downloads into the S3 claim: the downloader Job through the Kubernetes access role (apart from the stages'
# Kubernetes steps: it writes nothing but the Job).
DOWNLOADS = Group("downloads")
# Teams' namespaces: the claims and jobs' ServiceAccount copied through the Kubernetes access role, the pod identity
# associations to the jobs role (and that role's trust); created and removed alike, as one team's set.
TEAM_NAMESPACES = Group("team_namespaces")
# Stage 3 in AWS: the OIDC provider, the S3 CSI driver's bounded role, the add-ons (and stage 4's check of them).
DEPENDENCIES = Group("dependencies")
# Stage 4: the HyperPod cluster and what it is created with (its roles, lifecycle bucket, operator identity).
HYPERPOD_CLUSTER = Group("hyperpod_cluster")
HYPERPOD_CLUSTER_REMOVAL = Group("hyperpod_cluster_removal")
# UpdateCluster / UpdateClusterSoftware on the control plane's own HyperPod clusters.
INSTANCE_GROUPS = Group("instance_groups")
# Node actions on the control plane's own HyperPod clusters (one batch call each), and the node reads.
NODES = Group("nodes")
# Stage 5: the data bucket and the CSI role's access to it, the FSx file system.
STORAGE = Group("storage")
STORAGE_REMOVAL = Group("storage_removal")
# IAM: the workload identities stage 3 and the features created, deleted after the clusters are gone.
IDENTITIES_REMOVAL = Group("identities_removal")
# EventBridge: the rule forwarding another Region's HyperPod events to the home bus, created (passing the forwarding
# role) and removed under the deployment's ownership tags.
EVENT_FORWARDING = Group("event_forwarding")
EVENT_FORWARDING_REMOVAL = Group("event_forwarding_removal")
# Import: the adoption tag on the cluster and its VPC, and the reads that find its network.
IMPORT = Group("import")
# Giving an imported cluster back: what the stages added inside it, and the adoption tags.
IMPORTED_CLUSTER_RELEASE = Group("imported_cluster_release")
# DynamoDB only (and the failed execution's history).
OPERATIONS = Group("operations")
# HyperPod waits parked on a task token until an event or the fallback timeout (DynamoDB only).
EVENT_WAITS = Group("event_waits")


def feature_group(feature: Feature) -> Group:
    """An advanced feature's own group, named for it: `cert_manager`, `fsx_csi_driver`, …"""
    return Group(feature.key)
