"""Stage 4's steps, the HyperPod cluster (EKS orchestrator) with its first instance group: its execution role, the
lifecycle-script bucket, CreateCluster and the wait until it is InService, the node agents' readiness, the training
operator's identity; and the cluster's deletion with what it was created with."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.conditions import MANAGED_REQUEST, MANAGED_RESOURCE, VIA_AWS_SERVICE
from controlplane.access.ec2 import describe
from controlplane.access.eks import (
    ANY_ACCESS_ENTRY,
    ANY_EKS_CLUSTER,
    ANY_POD_IDENTITY,
    DESCRIBE_EKS_CLUSTER,
    EKS_CLUSTERS,
    EKS_CLUSTERS_REASON,
    OWNED_SUB_RESOURCE_REASON,
    READ_ANY_CLUSTER_REASON,
    also_adopted,
)
from controlplane.access.grant import ASSUME_KUBERNETES_ROLE, Grant
from controlplane.access.hyperpod import (
    DESCRIBE_HYPERPOD,
    HYPERPOD_CLUSTERS,
    HYPERPOD_CLUSTERS_REASON,
    HYPERPOD_EXEC_ROLES,
    PASS_EXECUTION_ROLE,
    STAGE4_ROLES_REASON,
    TRAINING_PLANS,
    TRAINING_PLANS_REASON,
)
from controlplane.access.iam import create_role_with_policy, delete_roles, pass_role, read_roles, role_arns
from controlplane.access.s3 import buckets
from controlplane.core.identity import EXECUTION_ROLE_POLICIES, POD_IDENTITY_PRINCIPAL, TRAINING_OPERATOR_POLICY
from controlplane.core.naming import eks_cluster_name, training_operator_role_name
from controlplane.models.workflow import DeleteEksClusterInput, GroupPlanInput, WorkflowState
from steps.groups import HYPERPOD_CLUSTER, HYPERPOD_CLUSTER_REMOVAL, KUBERNETES
from steps.step import work

_TRAINING_OPERATOR_ROLES = role_arns(training_operator_role_name)
_LIFECYCLE_BUCKETS = ("arn:{partition}:s3:::sagemaker-is-*", "arn:{partition}:s3:::sagemaker-is-*/*")
_LIFECYCLE_BUCKETS_REASON = (
    "Lifecycle-script buckets are named per cluster tag, account and Region at run time (sagemaker-is-<tag>-…); "
    "the pattern admits only those buckets and their objects"
)
_OWN_ACCESS_ENTRIES = (f"arn:{{partition}}:eks:*:{{account}}:access-entry/{eks_cluster_name('*')}/*",)
_HYPERPOD_ENTRY_ACTIONS = ("eks:DescribeAccessEntry", "eks:DeleteAccessEntry", "eks:AssociateAccessPolicy")
# HyperPod creates the access entries of its own roles with the caller's credentials (forward access sessions):
# allowed only through an AWS service (aws:ViaAWSService; aws:CalledVia is set only by the services the IAM User Guide
# lists for it, SageMaker not among them), in this deployment's clusters.
_HYPERPOD_ACCESS_ENTRIES = (
    Grant(("eks:CreateAccessEntry",), EKS_CLUSTERS, VIA_AWS_SERVICE, EKS_CLUSTERS_REASON),
    Grant(_HYPERPOD_ENTRY_ACTIONS, _OWN_ACCESS_ENTRIES, VIA_AWS_SERVICE, EKS_CLUSTERS_REASON),
    also_adopted(("eks:CreateAccessEntry",), VIA_AWS_SERVICE),
    Grant(
        _HYPERPOD_ENTRY_ACTIONS,
        ANY_ACCESS_ENTRY,
        VIA_AWS_SERVICE,
        "An imported cluster keeps its own name and HyperPod's access entries carry no tag of ours, so their ARNs "
        "cannot be named; only calls an AWS service makes with this role's credentials (HyperPod creating the "
        "cluster it was given), never the function's own",
    ),
)

STEPS = (
    work(
        "Ensure Execution Role",
        HYPERPOD_CLUSTER,
        WorkflowState,
        lambda ctx: wiring.hyperpod_stage(ctx.region).ensure_execution_role(ctx),
        create_role_with_policy(HYPERPOD_EXEC_ROLES, tuple(EXECUTION_ROLE_POLICIES), STAGE4_ROLES_REASON),
    ),
    work(
        "Ensure Lifecycle Scripts",
        HYPERPOD_CLUSTER,
        WorkflowState,
        lambda ctx: wiring.hyperpod_stage(ctx.region).ensure_lifecycle_scripts(ctx),
        buckets(
            (
                "s3:ListBucket",
                "s3:GetBucketTagging",
                "s3:CreateBucket",
                "s3:PutBucketPublicAccessBlock",
                "s3:PutEncryptionConfiguration",
                "s3:PutBucketPolicy",
                "s3:PutBucketTagging",
                "s3:GetObject",
                "s3:PutObject",
            ),
            _LIFECYCLE_BUCKETS,
            _LIFECYCLE_BUCKETS_REASON,
        ),
    ),
    work(
        "Create HyperPod Cluster",
        HYPERPOD_CLUSTER,
        GroupPlanInput,
        lambda ctx: wiring.hyperpod_stage(ctx.region).create_hyperpod_cluster(ctx),
        (
            DESCRIBE_HYPERPOD,
            Grant(
                ("sagemaker:CreateCluster", "sagemaker:AddTags"),
                HYPERPOD_CLUSTERS,
                MANAGED_REQUEST,
                HYPERPOD_CLUSTERS_REASON,
            ),
            Grant(("sagemaker:CreateCluster",), TRAINING_PLANS, reason=TRAINING_PLANS_REASON),
            DESCRIBE_EKS_CLUSTER,
            read_roles(HYPERPOD_EXEC_ROLES, STAGE4_ROLES_REASON),
            PASS_EXECUTION_ROLE,
            describe("DescribeSubnets", "DescribeSecurityGroups", "DescribeVpcs"),
            *_HYPERPOD_ACCESS_ENTRIES,
            Grant(
                ("iam:CreateServiceLinkedRole",),
                ("arn:{partition}:iam::{account}:role/aws-service-role/*",),
                {"StringEquals": {"iam:AWSServiceName": "hyperpod.sagemaker.amazonaws.com"}},
                "The service-linked role path is fixed by AWS; the condition admits only HyperPod's",
            ),
        ),
        waiting="Waiting for {clusterName} and its instance group to be InService",
    ),
    work(
        "Check HyperPod Cluster",
        HYPERPOD_CLUSTER,
        WorkflowState,
        lambda ctx: wiring.hyperpod_stage(ctx.region).check_hyperpod_cluster(ctx),
        (DESCRIBE_HYPERPOD,),
        settled="{hyperPodClusterName} and its instance group are InService",
    ),
    # Reads the dependency DaemonSets' pods and the nodes through the Kubernetes access role.
    work(
        "Check Node Agents",
        KUBERNETES,
        WorkflowState,
        lambda ctx: wiring.node_agents(ctx.region).check_node_agents(ctx),
        (DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE),
        settled="{hyperPodClusterName}: agents and device plugins {status}",
    ),
    work(
        "Ensure Training Operator Identity",
        HYPERPOD_CLUSTER,
        WorkflowState,
        lambda ctx: wiring.hyperpod_stage(ctx.region).ensure_training_operator_identity(ctx),
        (
            *create_role_with_policy(_TRAINING_OPERATOR_ROLES, (TRAINING_OPERATOR_POLICY,), STAGE4_ROLES_REASON),
            Grant(("eks:ListPodIdentityAssociations",), ANY_EKS_CLUSTER, reason=READ_ANY_CLUSTER_REASON),
            Grant(("eks:CreatePodIdentityAssociation",), EKS_CLUSTERS, reason=EKS_CLUSTERS_REASON),
            also_adopted(("eks:CreatePodIdentityAssociation",)),
            Grant(("eks:DescribePodIdentityAssociation",), ANY_POD_IDENTITY, reason=READ_ANY_CLUSTER_REASON),
            Grant(("eks:TagResource",), ANY_POD_IDENTITY, MANAGED_REQUEST, OWNED_SUB_RESOURCE_REASON),
            pass_role(_TRAINING_OPERATOR_ROLES, POD_IDENTITY_PRINCIPAL, STAGE4_ROLES_REASON),
        ),
    ),
    work(
        "Delete HyperPod Cluster",
        HYPERPOD_CLUSTER_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.hyperpod_stage(ctx.region).delete_hyperpod_cluster(ctx),
        (
            DESCRIBE_HYPERPOD,
            Grant(("sagemaker:DeleteCluster",), HYPERPOD_CLUSTERS, MANAGED_RESOURCE, HYPERPOD_CLUSTERS_REASON),
        ),
        waiting="Waiting for {clusterName} to be deleted",
    ),
    work(
        "Check HyperPod Cluster Deleted",
        HYPERPOD_CLUSTER_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.hyperpod_stage(ctx.region).check_hyperpod_cluster_deleted(ctx),
        (DESCRIBE_HYPERPOD,),
        settled="{hyperPodClusterName} is {status}",
    ),
    work(
        "Delete HyperPod Resources",
        HYPERPOD_CLUSTER_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.hyperpod_stage(ctx.region).delete_hyperpod_resources(ctx),
        (
            *delete_roles(HYPERPOD_EXEC_ROLES + _TRAINING_OPERATOR_ROLES, STAGE4_ROLES_REASON),
            *buckets(
                (
                    "s3:ListBucket",
                    "s3:ListBucketVersions",
                    "s3:GetBucketTagging",
                    "s3:DeleteObject",
                    "s3:DeleteObjectVersion",
                    "s3:DeleteBucket",
                ),
                _LIFECYCLE_BUCKETS,
                _LIFECYCLE_BUCKETS_REASON,
            ),
        ),
    ),
)
