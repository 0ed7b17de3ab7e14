"""SageMaker HyperPod grants: clusters (SageMaker assigns their IDs, so changes require the ownership tag), their
nodes, the training plans a group may use, and the execution role every instance group is passed."""

from __future__ import annotations

from controlplane.access.conditions import MANAGED_REQUEST, MANAGED_RESOURCE
from controlplane.access.grant import NO_RESOURCE_LEVEL_REASON, Grant
from controlplane.access.iam import pass_role, role_arns
from controlplane.core.identity import SAGEMAKER_PRINCIPAL
from controlplane.core.naming import hyperpod_execution_role_name

HYPERPOD_CLUSTERS = ("arn:{partition}:sagemaker:*:{account}:cluster/*",)
HYPERPOD_CLUSTERS_REASON = (
    "HyperPod cluster ARNs end in an ID that SageMaker assigns at creation; the statement requires the "
    "InstantStart ownership tag (in the request to create, on the resource to delete)"
)
HYPERPOD_READS_REASON = (
    "HyperPod cluster ARNs end in an ID that SageMaker assigns at creation, and imported clusters keep their own "
    "names, so these read-only actions name any HyperPod cluster of the account; they change nothing"
)
DESCRIBE_HYPERPOD = Grant(
    ("sagemaker:DescribeCluster", "sagemaker:ListTags"), HYPERPOD_CLUSTERS, reason=HYPERPOD_READS_REASON
)
READ_NODES = Grant(
    ("sagemaker:DescribeClusterNode", "sagemaker:ListClusterNodes"), HYPERPOD_CLUSTERS, reason=HYPERPOD_READS_REASON
)
# HyperPod's own cluster events (GET …/hyperpod-events).
READ_ACTIVITY = Grant(("sagemaker:ListClusterEvents",), HYPERPOD_CLUSTERS, reason=HYPERPOD_READS_REASON)
# Changing a HyperPod cluster the control plane created (the ownership tag is on the cluster).
UPDATE_HYPERPOD = Grant(("sagemaker:UpdateCluster",), HYPERPOD_CLUSTERS, MANAGED_RESOURCE, HYPERPOD_CLUSTERS_REASON)

TRAINING_PLANS = ("arn:{partition}:sagemaker:*:{account}:training-plan/*",)
TRAINING_PLANS_REASON = (
    "Training plans are bought by the account outside the control plane; a group may use any of them, and the "
    "request is validated against the plan before it is sent"
)

HYPERPOD_EXEC_ROLES = role_arns(hyperpod_execution_role_name)
STAGE4_ROLES_REASON = (
    "HyperPod execution and training-operator roles are created per cluster tag at run time; the patterns admit "
    "only the control plane's <deployment>-<tag>-… roles"
)
# Instance groups carry the HyperPod execution role; only SageMaker may receive it.
PASS_EXECUTION_ROLE = pass_role(HYPERPOD_EXEC_ROLES, SAGEMAKER_PRINCIPAL, STAGE4_ROLES_REASON)

# Task governance: the teams' compute quotas of a cluster (SageMaker assigns their IDs). Created on a cluster and
# tagged as the control plane's, deleted only while they carry those tags; ListComputeQuotas has no resource type.
COMPUTE_QUOTAS = ("arn:{partition}:sagemaker:*:{account}:compute-quota/*",)
COMPUTE_QUOTAS_REASON = (
    "Compute quota ARNs end in an ID that SageMaker assigns at creation; creating and tagging require the "
    "InstantStart ownership tags in the request, changing and deleting them on the quota"
)
MANAGE_COMPUTE_QUOTAS = (
    Grant(("sagemaker:ListComputeQuotas",), ("*",), reason=NO_RESOURCE_LEVEL_REASON),
    Grant(
        ("sagemaker:CreateComputeQuota",),
        HYPERPOD_CLUSTERS + COMPUTE_QUOTAS,
        MANAGED_REQUEST,
        COMPUTE_QUOTAS_REASON,
    ),
    Grant(("sagemaker:AddTags",), COMPUTE_QUOTAS, MANAGED_REQUEST, COMPUTE_QUOTAS_REASON),
    Grant(
        ("sagemaker:UpdateComputeQuota", "sagemaker:DeleteComputeQuota"),
        COMPUTE_QUOTAS,
        MANAGED_RESOURCE,
        COMPUTE_QUOTAS_REASON,
    ),
)
# The cluster's scheduler config, likewise: found by listing (no resource type), read, created tagged, changed and
# deleted only while it carries the ownership tags.
SCHEDULER_CONFIGS = ("arn:{partition}:sagemaker:*:{account}:cluster-scheduler-config/*",)
SCHEDULER_CONFIGS_REASON = (
    "Scheduler config ARNs end in an ID that SageMaker assigns at creation; reads name any of the account's, "
    "creating requires the InstantStart ownership tags in the request, updating and deleting them on the config"
)
MANAGE_SCHEDULER_CONFIGS = (
    Grant(("sagemaker:ListClusterSchedulerConfigs",), ("*",), reason=NO_RESOURCE_LEVEL_REASON),
    Grant(("sagemaker:DescribeClusterSchedulerConfig",), SCHEDULER_CONFIGS, reason=SCHEDULER_CONFIGS_REASON),
    Grant(
        ("sagemaker:CreateClusterSchedulerConfig",),
        HYPERPOD_CLUSTERS + SCHEDULER_CONFIGS,
        MANAGED_REQUEST,
        SCHEDULER_CONFIGS_REASON,
    ),
    Grant(("sagemaker:AddTags",), SCHEDULER_CONFIGS, MANAGED_REQUEST, SCHEDULER_CONFIGS_REASON),
    Grant(
        ("sagemaker:UpdateClusterSchedulerConfig", "sagemaker:DeleteClusterSchedulerConfig"),
        SCHEDULER_CONFIGS,
        MANAGED_RESOURCE,
        SCHEDULER_CONFIGS_REASON,
    ),
)
