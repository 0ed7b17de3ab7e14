"""What the advanced features create outside the clusters, as the feature steps, the API (which reads every feature
live) and the drift reconcile name it: the feature roles and policy, the inference operator's TLS buckets and the
observability feature's Prometheus workspace."""

from __future__ import annotations

from controlplane.access.conditions import DEPLOYMENT
from controlplane.access.grant import NO_RESOURCE_LEVEL_REASON, Grant
from controlplane.access.iam import LIST_OIDC_PROVIDERS, read_roles, role_arns
from controlplane.access.s3 import buckets
from controlplane.core.naming import (
    fsx_csi_role_name,
    inference_operator_role_name,
    inference_tls_bucket_name,
    job_role_name,
    karpenter_role_name,
    observability_role_name,
    tiered_storage_policy_name,
    tiered_storage_role_name,
)

TIERED_ROLES = role_arns(tiered_storage_role_name)
TIERED_POLICIES = (f"arn:{{partition}}:iam::{{account}}:policy/{tiered_storage_policy_name(DEPLOYMENT, '*')}",)
TIERED_REASON = (
    "The tiered-checkpointing role and policy are created per cluster tag at run time; the patterns admit only "
    "the control plane's <deployment>-<tag>-tiered-ckpt names"
)
READ_TIERED_POLICY = Grant(("iam:GetPolicy", "iam:ListPolicyTags"), TIERED_POLICIES, reason=TIERED_REASON)
READ_TIERED = (read_roles(TIERED_ROLES, TIERED_REASON), READ_TIERED_POLICY, LIST_OIDC_PROVIDERS)

FSX_CSI_ROLES = role_arns(fsx_csi_role_name)
OBSERVABILITY_ROLES = role_arns(observability_role_name)
FEATURE_ROLES_REASON = (
    "Feature roles are created per cluster tag at run time; the patterns admit only the control plane's "
    "<deployment>-<tag>-fsx-csi and <deployment>-<tag>-observability roles"
)
INFERENCE_ROLES = role_arns(inference_operator_role_name)
INFERENCE_ROLES_REASON = (
    "The inference operator's execution role is created per cluster tag at run time; the pattern admits only the "
    "control plane's <deployment>-<tag>-inference roles"
)
KARPENTER_ROLES = role_arns(karpenter_role_name)
KARPENTER_ROLES_REASON = (
    "The autoscaling ClusterRole is created per cluster tag at run time; the pattern admits only the control "
    "plane's <deployment>-<tag>-karpenter roles"
)
JOB_ROLES = role_arns(job_role_name)
JOB_ROLES_REASON = (
    "The training jobs' role is created per cluster tag at run time; the pattern admits only the control plane's "
    "<deployment>-<tag>-training-jobs roles"
)

TLS_BUCKETS = (f"arn:{{partition}}:s3:::{inference_tls_bucket_name('*', '{account}', '*')}",)
TLS_BUCKETS_REASON = (
    "TLS certificate buckets are named per cluster tag and Region at run time (hyperpod-tls-<tag>-<account>-"
    "<region>, the prefix AWS's inference policy requires); the pattern admits only this account's"
)
READ_TLS_BUCKETS = buckets(("s3:ListBucket", "s3:GetBucketTagging"), TLS_BUCKETS, TLS_BUCKETS_REASON)

# The observability feature's Prometheus workspace: found by alias (ListWorkspaces has no resource-level permission)
# and read; created tagged as the feature's, deleted only while it carries the ownership tags.
WORKSPACES = ("arn:{partition}:aps:*:{account}:workspace/*",)
WORKSPACES_REASON = (
    "Prometheus workspace IDs are assigned by AMP at creation, in the cluster's Region; reads name any workspace of "
    "the account (found by the control plane's alias), changes require the InstantStart ownership tags"
)
READ_WORKSPACES = (
    Grant(("aps:ListWorkspaces",), ("*",), reason=NO_RESOURCE_LEVEL_REASON),
    Grant(("aps:DescribeWorkspace",), WORKSPACES, reason=WORKSPACES_REASON),
)
