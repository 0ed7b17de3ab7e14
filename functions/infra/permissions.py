"""Who may do what: the IAM permissions of every Lambda function, in one reviewed table.

`STEP_ACCESS` has one entry per workflow step (tests assert parity with the workflows' steps): what that
step needs; the function serving the step's group (`infra.step_groups`) gets the union of its steps' entries.
`API_ACCESS` is the REST API function; `MCP_ACCESS` the remote MCP server. The stack renders each `Grant`
into one IAM policy statement on the function's role (`infra.grants`) and acknowledges cdk-nag's
AwsSolutions-IAM5 finding for every wildcard resource with the grant's `reason`, so the reason for a
wildcard lives next to the statement that needs it.

Resource templates are ARNs with `{placeholders}`, filled in by the stack:
  {partition} {account} {region}   the deployment's pseudo parameters
  {url_suffix}                     its partition's DNS suffix (AWS::URLSuffix: amazonaws.com, amazonaws.com.cn)
  {deployment}                     the deployment name (context `deploymentName`): it starts the IAM names the
                                   steps create and is the value of their ownership tag
  {kubernetes_role_arn}            the role whose identity signs the steps' EKS bearer tokens (cluster admin)
  {kubernetes_view_role_arn}       the role whose identity signs the API's EKS bearer tokens (view only)
  {kubernetes_jobs_role_arn}       the role whose identity signs the API's job writes (job writers' group)
  {workload_boundary_arn}          the permissions boundary of workload (IRSA) roles
  {service_boundary_arn}           the permissions boundary of the roles AWS services and operators assume
  {autoscaling_boundary_arn}       the permissions boundary of HyperPod autoscaling roles
  {state_machine_arn}              every workflow's state machine ARN (one resource per workflow)
  {state_machine_name}             every workflow's state machine name (one resource per workflow)
  {event_forwarding_role_arn}      the role EventBridge assumes to put other Regions' HyperPod events on the home bus
  {rest_api_id} {stage}            the REST API and its stage
Regions are `*` for the resources the steps create: each cluster lives in the Region its request names.

Conventions (see shared/reference/reliability.md §2.3):
- `Resource: "*"` only for actions that have no resource-level permissions (`NO_RESOURCE_LEVEL`).
- EC2 creates require the ownership tag in the request (`aws:RequestTag`); EC2 changes and deletes
  require it on the resource (`aws:ResourceTag`); `ec2:CreateTags` only while creating (`ec2:CreateAction`).
- IAM and EKS names are scoped by the deterministic names of `controlplane.core.naming`; what the steps create
  carries the deployment's ownership tags (its name and Region), which the conditions below require. Every role a step
  creates carries one of the stack's permissions boundaries: `iam:CreateRole`, `iam:AttachRolePolicy` and
  `iam:PutRolePolicy` are allowed only with `iam:PermissionsBoundary` equal to it.
- Bucket actions carry `s3:ResourceAccount` = this account: a bucket of our name in another account is never
  read or written.
- Imported clusters keep their own names. EKS reads (Describe/List) name any cluster of the account;
  EKS changes on an imported cluster require the `instantstart:cluster` tag on it, which only the import
  workflow adds (tag keys limited to that one); sub-resources the steps create carry the ownership tags
  and are deleted only with them. EC2 children (compute subnets, route table) may be created in a VPC
  that carries the `instantstart:cluster` tag (an adopted VPC) as well as in our own.
DynamoDB access is not listed here: the stack grants `DYNAMODB_ACTIONS` on the tables each function
names in `tables` (table ARN plus the ARNs of its named indexes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controlplane.core.features.fsx_csi_driver import FSX_CSI_POLICY
from controlplane.core.features.inference_operator import INFERENCE_OPERATOR_POLICY
from controlplane.core.features.observability import OBSERVABILITY_POLICIES
from controlplane.core.hyperpod.stage import (
    EXECUTION_ROLE_POLICIES,
    POD_IDENTITY_PRINCIPAL,
    SAGEMAKER_PRINCIPAL,
    TRAINING_OPERATOR_POLICY,
)
from controlplane.core.naming import (
    CLUSTER_TAG_KEY,
    Deployment,
    eks_cluster_name,
    eks_cluster_role_name,
    event_forwarding_rule_name,
    fsx_csi_role_name,
    hyperpod_execution_role_name,
    inference_operator_role_name,
    inference_tls_bucket_name,
    job_role_name,
    karpenter_role_name,
    observability_role_name,
    s3_csi_role_name,
    tiered_storage_policy_name,
    tiered_storage_role_name,
    training_operator_role_name,
)
from controlplane.core.network.eks_stack import EKS_CLUSTER_POLICY, EKS_SERVICE_PRINCIPAL
from controlplane.core.ports.eks import ADMIN_ACCESS_POLICY, VIEW_ACCESS_POLICY
from controlplane.core.workload_access import JOB_WRITERS_GROUP

# Actions that the Service Authorization Reference lists without any resource type: IAM evaluates
# them against "*" only. A grant may use Resource "*" only for these (checked below and in tests
# against cfn-lint's copy of the reference).
NO_RESOURCE_LEVEL = frozenset(
    {
        "ec2:DescribeAddresses",
        "ec2:DescribeAvailabilityZones",
        "ec2:DescribeInstanceTypeOfferings",
        "ec2:DescribeInternetGateways",
        "ec2:DescribeNatGateways",
        "ec2:DescribeRouteTables",
        "ec2:DescribeSecurityGroups",
        "ec2:DescribeSubnets",
        "ec2:DescribeVpcEndpoints",
        "ec2:DescribeVpcs",
        "aps:CreateWorkspace",
        "aps:ListWorkspaces",
        "eks:CreateCluster",
        "eks:DescribeAddonVersions",
        "eks:ListClusters",
        "fsx:DescribeFileSystems",
        "iam:ListOpenIDConnectProviders",
        "logs:DescribeLogGroups",
        "pricing:GetProducts",
        "sagemaker:ListClusters",
        "sagemaker:ListMlflowTrackingServers",
        "sagemaker:ListTrainingPlans",
        "servicequotas:ListServiceQuotas",
        "states:SendTaskSuccess",
        "xray:PutTelemetryRecords",
        "xray:PutTraceSegments",
    }
)

# Item-level DynamoDB access (no Scan, no batch, no table management).
DYNAMODB_ACTIONS = (
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
)

STEP_TABLES = ("IS_OPERATIONS_TABLE", "IS_CLUSTERS_TABLE")

# How a function relates to the Kubernetes access role (FunctionAccess.kubernetes_role).
PRINCIPAL = "principal"  # reads IS_KUBERNETES_ROLE_ARN: grants cluster access to that role
ASSUME = "assume"  # also assumes the role to sign EKS bearer tokens, and is trusted by it

# The deployment as the stack renders this table: its name, Region and partition are placeholders, so the names
# and ownership tags below come from the same builders (`controlplane.core.naming`) the steps use.
_DEPLOYMENT = Deployment(name="{deployment}", region="{region}", partition="{partition}")
_OWNERSHIP = "instantstart:managed-by=<deployment> and instantstart:deployment-region=<its Region>"


def _owned(where: str) -> dict[str, str]:
    """The deployment's ownership tags in the request (`RequestTag`) or on the resource (`ResourceTag`)."""
    return {f"aws:{where}/{key}": value for key, value in _DEPLOYMENT.owner_tags().items()}


_MANAGED_RESOURCE = {"StringEquals": _owned("ResourceTag")}
_MANAGED_REQUEST = {"StringEquals": _owned("RequestTag")}

_NO_RESOURCE_LEVEL_REASON = (
    "These actions have no resource-level permissions in the IAM Service Authorization Reference, "
    "so IAM only accepts Resource '*' for them"
)
_EC2_IDS_REASON = (
    "EC2 IDs are generated by AWS at creation, so the ARN cannot be named in advance; the statement "
    f"is limited to resources carrying the tags {_OWNERSHIP}"
)
_EC2_CREATE_REASON = (
    f"A new EC2 resource has no ID before it is created; the statement requires the request to tag it {_OWNERSHIP}"
)
_EC2_TAG_ON_CREATE_REASON = (
    "CreateTags is allowed only as part of the listed create calls (ec2:CreateAction), which tag the "
    "resource they create; the new resource's ID is unknown in advance"
)
_EKS_CLUSTERS_REASON = (
    "Clusters are created per cluster tag at run time; the ARN pattern admits only the control "
    f"plane's deterministic names ({eks_cluster_name('<tag>')})"
)
_CLUSTER_ROLES_REASON = (
    "Cluster roles are created per cluster tag at run time; the pattern admits only the control "
    f"plane's deterministic role names ({eks_cluster_role_name(_DEPLOYMENT, '<tag>')})"
)
_EXECUTIONS_REASON = (
    "Execution names are chosen per operation at run time; the pattern admits only executions of "
    "this stack's own state machines"
)


@dataclass(frozen=True)
class Grant:
    """One IAM policy statement: actions on resource templates, under optional conditions."""

    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Why a wildcard resource is needed; becomes the cdk-nag acknowledgement's reason.
    reason: str = ""

    def __post_init__(self) -> None:
        if "*" in self.resources:
            unscoped = sorted(set(self.actions) - NO_RESOURCE_LEVEL)
            if unscoped:
                raise ValueError(f"Resource '*' for actions with resource-level permissions: {unscoped}")
        if any("*" in resource for resource in self.resources) and len(self.reason) < 30:
            raise ValueError(f"Wildcard resources of {self.actions} need a reason of at least 30 characters.")
        if any(action == "*" or action.endswith(":*") for action in self.actions):
            raise ValueError(f"Wildcard actions are not allowed: {self.actions}")


@dataclass(frozen=True)
class FunctionAccess:
    """Everything one function's role is allowed, besides writing its own logs and traces."""

    grants: tuple[Grant, ...]
    tables: tuple[str, ...] = STEP_TABLES  # TableSpec.env_var of the tables it reads and writes
    # None, PRINCIPAL or ASSUME.
    kubernetes_role: str | None = None


def _ec2(*resource_types: str) -> tuple[str, ...]:
    return tuple(f"arn:{{partition}}:ec2:*:{{account}}:{kind}/*" for kind in resource_types)


def _describe(*actions: str) -> Grant:
    return Grant(tuple(f"ec2:{action}" for action in actions), ("*",), reason=_NO_RESOURCE_LEVEL_REASON)


def _ec2_create(action: str, created: str, *parents: str) -> tuple[Grant, ...]:
    """An EC2 create call: the new resource must be tagged as ours, and so must its parents."""
    grants = [
        Grant((f"ec2:{action}",), _ec2(created), _MANAGED_REQUEST, _EC2_CREATE_REASON),
        Grant(
            ("ec2:CreateTags",),
            _ec2(created),
            {"StringEquals": {"ec2:CreateAction": action}},
            _EC2_TAG_ON_CREATE_REASON,
        ),
    ]
    if parents:
        grants.append(Grant((f"ec2:{action}",), _ec2(*parents), _MANAGED_RESOURCE, _EC2_IDS_REASON))
    return tuple(grants)


def _ec2_managed(actions: tuple[str, ...], *resource_types: str) -> Grant:
    """Change or delete EC2 resources that carry our ownership tag."""
    return Grant(
        tuple(f"ec2:{action}" for action in actions),
        _ec2(*resource_types),
        _MANAGED_RESOURCE,
        _EC2_IDS_REASON,
    )


_EKS_CLUSTERS = (f"arn:{{partition}}:eks:*:{{account}}:cluster/{eks_cluster_name('*')}",)
_CLUSTER_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{eks_cluster_role_name(_DEPLOYMENT, '*')}",)
# The control plane's three principals on a cluster: the steps' (cluster admin), the API's (view only) and the API's
# jobs role (the job writers' group).
_KUBERNETES_PRINCIPALS = {
    "StringEquals": {
        "eks:principalArn": ["{kubernetes_role_arn}", "{kubernetes_view_role_arn}", "{kubernetes_jobs_role_arn}"]
    }
}
# An access entry the steps create names no Kubernetes group but the job writers' (never system:masters).
_KUBERNETES_ENTRY_GROUPS = {"ForAllValues:StringEquals": {"eks:kubernetesGroups": [JOB_WRITERS_GROUP]}}

# Roles the control plane creates for workloads (IRSA) must carry the workload permissions boundary.
_BOUNDED_REQUEST = {
    "StringEquals": {
        **_owned("RequestTag"),
        "iam:PermissionsBoundary": "{workload_boundary_arn}",
    }
}
_BOUNDED_RESOURCE = {
    "StringEquals": {
        **_owned("ResourceTag"),
        "iam:PermissionsBoundary": "{workload_boundary_arn}",
    }
}
# Roles AWS services (EKS, SageMaker) and operators' pods assume, with AWS managed policies attached.
_SERVICE_BOUNDED_REQUEST = {
    "StringEquals": {
        **_owned("RequestTag"),
        "iam:PermissionsBoundary": "{service_boundary_arn}",
    }
}
_SERVICE_BOUNDED_RESOURCE = {
    "StringEquals": {
        **_owned("ResourceTag"),
        "iam:PermissionsBoundary": "{service_boundary_arn}",
    }
}
# Bucket actions only on buckets of this account (a bucket of our name elsewhere is someone else's).
_THIS_ACCOUNT_BUCKETS = {"StringEquals": {"s3:ResourceAccount": "{account}"}}


def _buckets(actions: tuple[str, ...], resources: tuple[str, ...], reason: str) -> tuple[Grant, ...]:
    """Bucket and object actions on buckets of this account only. CreateBucket always creates in the caller's
    account (a name taken elsewhere fails with BucketAlreadyExists), so it is granted on its own."""
    grants = [Grant(tuple(a for a in actions if a != "s3:CreateBucket"), resources, _THIS_ACCOUNT_BUCKETS, reason)]
    if "s3:CreateBucket" in actions:
        grants.append(Grant(("s3:CreateBucket",), resources, reason=reason))
    return tuple(grants)


_S3_CSI_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{s3_csi_role_name(_DEPLOYMENT, '*')}",)
_S3_CSI_ROLES_REASON = (
    "The Mountpoint for S3 CSI driver role is created per cluster tag at run time; the pattern admits only "
    "the control plane's <deployment>-<tag>-s3-csi roles"
)
_OIDC_PROVIDERS = ("arn:{partition}:iam::{account}:oidc-provider/oidc.eks.*.{url_suffix}/id/*",)
_OIDC_PROVIDERS_REASON = (
    "EKS assigns each cluster's OIDC issuer ID at creation; the pattern admits only EKS issuers of this account"
)
_HYPERPOD_EXEC_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{hyperpod_execution_role_name(_DEPLOYMENT, '*')}",)
_TRAINING_OPERATOR_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{training_operator_role_name(_DEPLOYMENT, '*')}",)
_STAGE4_ROLES_REASON = (
    "HyperPod execution and training-operator roles are created per cluster tag at run time; the patterns admit "
    "only the control plane's <deployment>-<tag>-… roles"
)
_HYPERPOD_CLUSTERS = ("arn:{partition}:sagemaker:*:{account}:cluster/*",)
_HYPERPOD_CLUSTERS_REASON = (
    "HyperPod cluster ARNs end in an ID that SageMaker assigns at creation; the statement requires the "
    "InstantStart ownership tag (in the request to create, on the resource to delete)"
)
_LIFECYCLE_BUCKETS = ("arn:{partition}:s3:::sagemaker-is-*", "arn:{partition}:s3:::sagemaker-is-*/*")
_LIFECYCLE_BUCKETS_REASON = (
    "Lifecycle-script buckets are named per cluster tag, account and Region at run time (sagemaker-is-<tag>-…); "
    "the pattern admits only those buckets and their objects"
)
_ANY_EKS_CLUSTER = ("arn:{partition}:eks:*:{account}:cluster/*",)
_ANY_ACCESS_ENTRY = ("arn:{partition}:eks:*:{account}:access-entry/*/*",)
_ANY_ADDON = ("arn:{partition}:eks:*:{account}:addon/*/*/*",)
_ANY_POD_IDENTITY = ("arn:{partition}:eks:*:{account}:podidentityassociation/*/*",)
# The cluster (or VPC) carries the tag import adds; only import and release may set or remove that one key.
_ADOPTED = {"Null": {f"aws:ResourceTag/{CLUSTER_TAG_KEY}": "false"}}
_ADOPTION_TAG_ONLY = {"ForAllValues:StringEquals": {"aws:TagKeys": [CLUSTER_TAG_KEY]}}
_READ_ANY_CLUSTER_REASON = (
    "Imported clusters keep their own names, so these read-only EKS actions name any cluster (or its add-ons, "
    "access entries, pod identity associations) of the account; they change nothing"
)
_ADOPTED_CLUSTERS_REASON = (
    "Imported clusters keep their own names; the statement requires the instantstart:cluster tag on the "
    "cluster, which only the import workflow adds"
)
_ADOPTION_TAG_REASON = (
    "Import adopts a cluster the control plane did not create, so its name or VPC ID is unknown in advance; "
    "the statement admits only the instantstart:cluster tag key"
)
_OWNED_SUB_RESOURCE_REASON = (
    "EKS assigns the IDs of add-ons, access entries and pod identity associations; the statement requires "
    f"each ownership tag ({_OWNERSHIP}), set when the control plane created them"
)
_FILE_SYSTEMS = ("arn:{partition}:fsx:*:{account}:file-system/*",)
_FILE_SYSTEMS_REASON = (
    "FSx assigns file system IDs at creation; the statement requires the InstantStart ownership tag (in the "
    "request to create, on the file system to delete)"
)
# Ending a task-token wait (the token names its execution). SendTaskSuccess has no resource-level permissions: a
# statement naming the state machines never matched it.
_SEND_TASK_SUCCESS = Grant(("states:SendTaskSuccess",), ("*",), reason=_NO_RESOURCE_LEVEL_REASON)
# Starting an operation's workflow: this deployment's state machines only.
_START_EXECUTION = Grant(("states:StartExecution",), ("{state_machine_arn}",))
_DESCRIBE_FILE_SYSTEMS = Grant(("fsx:DescribeFileSystems",), ("*",), reason=_NO_RESOURCE_LEVEL_REASON)
_HYPERPOD_READS_REASON = (
    "HyperPod cluster ARNs end in an ID that SageMaker assigns at creation, and imported clusters keep their own "
    "names, so these read-only actions name any HyperPod cluster of the account; they change nothing"
)
_DESCRIBE_HYPERPOD = Grant(
    ("sagemaker:DescribeCluster", "sagemaker:ListTags"), _HYPERPOD_CLUSTERS, reason=_HYPERPOD_READS_REASON
)
_TRAINING_PLANS = ("arn:{partition}:sagemaker:*:{account}:training-plan/*",)
# Instance groups carry the HyperPod execution role; only SageMaker may receive it.
_PASS_EXECUTION_ROLE = Grant(
    ("iam:PassRole",),
    _HYPERPOD_EXEC_ROLES,
    {"StringEquals": {"iam:PassedToService": SAGEMAKER_PRINCIPAL}},
    _STAGE4_ROLES_REASON,
)
_TRAINING_PLANS_REASON = (
    "Training plans are bought by the account outside the control plane; a group may use any of them, and the "
    "request is validated against the plan before it is sent"
)
_PREFLIGHT_QUOTAS = tuple(
    f"arn:{{partition}}:servicequotas:*:{{account}}:{service}/*" for service in ("sagemaker", "vpc", "ec2", "eks")
)
_PREFLIGHT_QUOTAS_REASON = (
    "Pre-flight reads the applied value of quotas it finds by name (SageMaker cluster usage per instance type, VPC, "
    "EC2 and EKS quotas), so their codes are not known in advance; only these four services' quotas, read-only"
)
# Changing a HyperPod cluster the control plane created (the ownership tag is on the cluster).
_UPDATE_OWN_HYPERPOD = Grant(
    ("sagemaker:UpdateCluster",), _HYPERPOD_CLUSTERS, _MANAGED_RESOURCE, _HYPERPOD_CLUSTERS_REASON
)


def _read_roles(roles: tuple[str, ...], reason: str) -> Grant:
    return Grant(
        ("iam:GetRole", "iam:ListAttachedRolePolicies", "iam:ListRoleTags", "iam:ListRolePolicies"),
        roles,
        reason=reason,
    )


def _create_role_with_policy(roles: tuple[str, ...], policies: tuple[str, ...], reason: str) -> tuple[Grant, ...]:
    """Create a role within the service boundary and attach the AWS managed policies it is made for."""
    return (
        _read_roles(roles, reason),
        Grant(("iam:CreateRole",), roles, _SERVICE_BOUNDED_REQUEST, reason),
        Grant(("iam:TagRole",), roles, _MANAGED_REQUEST, reason),
        Grant(
            ("iam:AttachRolePolicy",),
            roles,
            {
                "ArnEquals": {"iam:PolicyARN": [_DEPLOYMENT.managed_policy_arn(name) for name in policies]},
                **_SERVICE_BOUNDED_RESOURCE,
            },
            reason,
        ),
    )


def _delete_roles(roles: tuple[str, ...], reason: str) -> tuple[Grant, ...]:
    return (
        _read_roles(roles, reason),
        Grant(("iam:DetachRolePolicy", "iam:DeleteRolePolicy", "iam:DeleteRole"), roles, _MANAGED_RESOURCE, reason),
    )


def _associate_access_policy(principal: str, policy: str) -> Grant:
    """One principal may get one EKS access policy (cluster admin for the steps' role, view for the API's)."""
    return Grant(
        ("eks:AssociateAccessPolicy",),
        _ANY_ACCESS_ENTRY,
        {
            "StringEquals": {
                "eks:policyArn": f"arn:{{partition}}:eks::aws:cluster-access-policy/{policy}",
                "eks:principalArn": principal,
            }
        },
        "Access entry ARNs end in a UUID that EKS assigns; the condition pairs the control plane's own role with "
        f"its one access policy, {policy} (the entry itself exists only where CreateAccessEntry was allowed)",
    )


_LIST_OIDC_PROVIDERS = Grant(("iam:ListOpenIDConnectProviders",), ("*",), reason=_NO_RESOURCE_LEVEL_REASON)
_READ_S3_CSI_ROLE = Grant(
    ("iam:GetRole", "iam:ListAttachedRolePolicies", "iam:ListRoleTags", "iam:GetRolePolicy", "iam:ListRolePolicies"),
    _S3_CSI_ROLES,
    reason=_S3_CSI_ROLES_REASON,
)
_DESCRIBE_EKS_CLUSTER = Grant(("eks:DescribeCluster",), _ANY_EKS_CLUSTER, reason=_READ_ANY_CLUSTER_REASON)
_DESCRIBE_ADDONS = Grant(("eks:DescribeAddon",), _ANY_ADDON, reason=_READ_ANY_CLUSTER_REASON)
# Which add-on versions a Kubernetes version allows: the version an add-on is created at.
_DESCRIBE_ADDON_VERSIONS = Grant(("eks:DescribeAddonVersions",), ("*",), reason=_NO_RESOURCE_LEVEL_REASON)
_ASSUME_KUBERNETES_ROLE = Grant(("sts:AssumeRole",), ("{kubernetes_role_arn}",))


def _also_adopted(actions: tuple[str, ...], conditions: Mapping[str, Mapping[str, Any]] | None = None) -> Grant:
    """The same EKS cluster actions on an imported cluster: any name, while it carries the adoption tag."""
    return Grant(actions, _ANY_EKS_CLUSTER, {**(conditions or {}), **_ADOPTED}, _ADOPTED_CLUSTERS_REASON)


# Calls an AWS service makes with the caller's credentials (forward access sessions), never the caller's own.
_VIA_AWS_SERVICE = {"Bool": {"aws:ViaAWSService": "true"}}
_OWN_ACCESS_ENTRIES = (f"arn:{{partition}}:eks:*:{{account}}:access-entry/{eks_cluster_name('*')}/*",)
_HYPERPOD_ENTRY_ACTIONS = ("eks:DescribeAccessEntry", "eks:DeleteAccessEntry", "eks:AssociateAccessPolicy")
_HYPERPOD_ACCESS_ENTRIES = (
    Grant(("eks:CreateAccessEntry",), _EKS_CLUSTERS, _VIA_AWS_SERVICE, _EKS_CLUSTERS_REASON),
    Grant(_HYPERPOD_ENTRY_ACTIONS, _OWN_ACCESS_ENTRIES, _VIA_AWS_SERVICE, _EKS_CLUSTERS_REASON),
    _also_adopted(("eks:CreateAccessEntry",), _VIA_AWS_SERVICE),
    Grant(
        _HYPERPOD_ENTRY_ACTIONS,
        _ANY_ACCESS_ENTRY,
        _VIA_AWS_SERVICE,
        "An imported cluster keeps its own name and HyperPod's access entries carry no tag of ours, so their ARNs "
        "cannot be named; only calls an AWS service makes with this role's credentials (HyperPod creating the "
        "cluster it was given), never the function's own",
    ),
)


_READ_CLUSTER_ROLE = Grant(
    ("iam:GetRole", "iam:ListAttachedRolePolicies", "iam:ListRoleTags"),
    _CLUSTER_ROLES,
    reason=_CLUSTER_ROLES_REASON,
)

_TIERED_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{tiered_storage_role_name(_DEPLOYMENT, '*')}",)
_TIERED_POLICIES = (f"arn:{{partition}}:iam::{{account}}:policy/{tiered_storage_policy_name(_DEPLOYMENT, '*')}",)
_TIERED_REASON = (
    "The tiered-checkpointing role and policy are created per cluster tag at run time; the patterns admit only "
    "the control plane's <deployment>-<tag>-tiered-ckpt names"
)
_READ_TIERED = (
    _read_roles(_TIERED_ROLES, _TIERED_REASON),
    Grant(("iam:GetPolicy", "iam:ListPolicyTags"), _TIERED_POLICIES, reason=_TIERED_REASON),
    _LIST_OIDC_PROVIDERS,
)
_FSX_CSI_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{fsx_csi_role_name(_DEPLOYMENT, '*')}",)
_OBSERVABILITY_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{observability_role_name(_DEPLOYMENT, '*')}",)
_FEATURE_ROLES_REASON = (
    "Feature roles are created per cluster tag at run time; the patterns admit only the control plane's "
    "<deployment>-<tag>-fsx-csi and <deployment>-<tag>-observability roles"
)
_INFERENCE_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{inference_operator_role_name(_DEPLOYMENT, '*')}",)
_INFERENCE_ROLES_REASON = (
    "The inference operator's execution role is created per cluster tag at run time; the pattern admits only the "
    "control plane's <deployment>-<tag>-inference roles"
)
_TLS_BUCKETS = (f"arn:{{partition}}:s3:::{inference_tls_bucket_name('*', '{account}', '*')}",)
_TLS_BUCKETS_REASON = (
    "TLS certificate buckets are named per cluster tag and Region at run time (hyperpod-tls-<tag>-<account>-"
    "<region>, the prefix AWS's inference policy requires); the pattern admits only this account's"
)
_READ_TLS_BUCKETS = _buckets(("s3:ListBucket", "s3:GetBucketTagging"), _TLS_BUCKETS, _TLS_BUCKETS_REASON)
# A TLS bucket is emptied, then deleted: it holds only the certificates the operator wrote.
_EMPTY_TLS_BUCKETS = (
    *_READ_TLS_BUCKETS,
    *_buckets(
        ("s3:ListBucketVersions", "s3:DeleteObject", "s3:DeleteObjectVersion", "s3:DeleteBucket"),
        _TLS_BUCKETS + tuple(f"{bucket}/*" for bucket in _TLS_BUCKETS),
        _TLS_BUCKETS_REASON,
    ),
)
_KARPENTER_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{karpenter_role_name(_DEPLOYMENT, '*')}",)
_KARPENTER_ROLES_REASON = (
    "The autoscaling ClusterRole is created per cluster tag at run time; the pattern admits only the control "
    "plane's <deployment>-<tag>-karpenter roles"
)
_AUTOSCALING_BOUNDED = {"iam:PermissionsBoundary": "{autoscaling_boundary_arn}"}
_READ_KARPENTER_ROLES = Grant(
    ("iam:GetRole", "iam:ListAttachedRolePolicies", "iam:ListRoleTags", "iam:ListRolePolicies", "iam:GetRolePolicy"),
    _KARPENTER_ROLES,
    reason=_KARPENTER_ROLES_REASON,
)
# The observability feature's Prometheus workspace: found by alias (ListWorkspaces has no resource-level permission)
# and read; created tagged as the feature's, deleted only while it carries the ownership tags.
_WORKSPACES = ("arn:{partition}:aps:*:{account}:workspace/*",)
_WORKSPACES_REASON = (
    "Prometheus workspace IDs are assigned by AMP at creation, in the cluster's Region; reads name any workspace of "
    "the account (found by the control plane's alias), changes require the InstantStart ownership tags"
)
_READ_WORKSPACES = (
    Grant(("aps:ListWorkspaces",), ("*",), reason=_NO_RESOURCE_LEVEL_REASON),
    Grant(("aps:DescribeWorkspace",), _WORKSPACES, reason=_WORKSPACES_REASON),
)
_CREATE_WORKSPACE = (
    # CreateWorkspace has no resource type: the ownership tags in the request are its only scope.
    Grant(("aps:CreateWorkspace",), ("*",), _MANAGED_REQUEST, _NO_RESOURCE_LEVEL_REASON),
    Grant(("aps:TagResource",), _WORKSPACES, _MANAGED_REQUEST, _WORKSPACES_REASON),
)
_DELETE_WORKSPACE = Grant(("aps:DeleteWorkspace",), _WORKSPACES, _MANAGED_RESOURCE, _WORKSPACES_REASON)
# Every feature step first reads the cluster's EKS control plane and HyperPod cluster.
_FEATURE_FACTS = (_DESCRIBE_EKS_CLUSTER, _DESCRIBE_HYPERPOD)
# Creating an add-on, then judging it: one that waits for replicas is read against the cluster's nodes, through the
# Kubernetes access role (so every step that creates an add-on assumes it).
_CREATE_ADDON = (
    _DESCRIBE_ADDONS,
    _DESCRIBE_ADDON_VERSIONS,
    _ASSUME_KUBERNETES_ROLE,
    Grant(("eks:CreateAddon",), _EKS_CLUSTERS, _MANAGED_REQUEST, _EKS_CLUSTERS_REASON),
    _also_adopted(("eks:CreateAddon",), _MANAGED_REQUEST),
    Grant(("eks:TagResource",), _ANY_ADDON, _MANAGED_REQUEST, _OWNED_SUB_RESOURCE_REASON),
)
_DELETE_ADDON = (
    _DESCRIBE_ADDONS,
    Grant(("eks:DeleteAddon",), _ANY_ADDON, _MANAGED_RESOURCE, _OWNED_SUB_RESOURCE_REASON),
)
_READ_NODES = Grant(
    ("sagemaker:DescribeClusterNode", "sagemaker:ListClusterNodes"), _HYPERPOD_CLUSTERS, reason=_HYPERPOD_READS_REASON
)


def _act_on_nodes(action: str) -> Grant:
    """A batch node call, on the control plane's own HyperPod clusters only."""
    return Grant((action,), _HYPERPOD_CLUSTERS, _MANAGED_RESOURCE, _HYPERPOD_CLUSTERS_REASON)


_UPDATE_HYPERPOD = Grant(("sagemaker:UpdateCluster",), _HYPERPOD_CLUSTERS, _MANAGED_RESOURCE, _HYPERPOD_CLUSTERS_REASON)
_KUBERNETES = Grant(("sts:AssumeRole",), ("{kubernetes_role_arn}",))
_JOB_ROLES = (f"arn:{{partition}}:iam::{{account}}:role/{job_role_name(_DEPLOYMENT, '*')}",)
_JOB_ROLES_REASON = (
    "The training jobs' role is created per cluster tag at run time; the pattern admits only the control plane's "
    "<deployment>-<tag>-training-jobs roles"
)
_READ_POD_IDENTITIES = (
    Grant(("eks:ListPodIdentityAssociations",), _ANY_EKS_CLUSTER, reason=_READ_ANY_CLUSTER_REASON),
    Grant(("eks:DescribePodIdentityAssociation",), _ANY_POD_IDENTITY, reason=_READ_ANY_CLUSTER_REASON),
)
# The trainingOperator feature's jobs identity: a role within the workload boundary whose one inline policy lets
# jobs log to MLflow, its ServiceAccount (through the Kubernetes role) and their pod identity association.
_ENSURE_JOB_IDENTITY = (
    _read_roles(_JOB_ROLES, _JOB_ROLES_REASON),
    Grant(("iam:GetRolePolicy",), _JOB_ROLES, reason=_JOB_ROLES_REASON),
    Grant(("iam:CreateRole",), _JOB_ROLES, _BOUNDED_REQUEST, _JOB_ROLES_REASON),
    Grant(("iam:TagRole",), _JOB_ROLES, _MANAGED_REQUEST, _JOB_ROLES_REASON),
    Grant(("iam:PutRolePolicy",), _JOB_ROLES, _BOUNDED_RESOURCE, _JOB_ROLES_REASON),
    Grant(
        ("iam:PassRole",),
        _JOB_ROLES,
        {"StringEquals": {"iam:PassedToService": POD_IDENTITY_PRINCIPAL}},
        _JOB_ROLES_REASON,
    ),
    *_READ_POD_IDENTITIES,
    Grant(("eks:CreatePodIdentityAssociation",), _EKS_CLUSTERS, reason=_EKS_CLUSTERS_REASON),
    _also_adopted(("eks:CreatePodIdentityAssociation",)),
    Grant(("eks:TagResource",), _ANY_POD_IDENTITY, _MANAGED_REQUEST, _OWNED_SUB_RESOURCE_REASON),
    _KUBERNETES,
)
_REMOVE_JOB_IDENTITY = (
    *_delete_roles(_JOB_ROLES, _JOB_ROLES_REASON),
    *_READ_POD_IDENTITIES,
    Grant(("eks:DeletePodIdentityAssociation",), _ANY_POD_IDENTITY, _MANAGED_RESOURCE, _OWNED_SUB_RESOURCE_REASON),
    _KUBERNETES,
)

# Another Region's rule forwarding HyperPod's events to this deployment's default bus (one per Region).
_FORWARDING_RULES = (f"arn:{{partition}}:events:*:{{account}}:rule/{event_forwarding_rule_name(_DEPLOYMENT)}",)
_FORWARDING_RULES_REASON = (
    "The forwarding rule lives in each Region a cluster is created in, chosen per request; the pattern admits only "
    "this deployment's rule name (<deployment>-hyperpod-events-to-<its Region>)"
)
_HOME_BUS = "arn:{partition}:events:{region}:{account}:event-bus/default"
_READ_FORWARDING_RULES = Grant(
    ("events:DescribeRule", "events:ListTargetsByRule", "events:ListTagsForResource"),
    _FORWARDING_RULES,
    reason=_FORWARDING_RULES_REASON,
)

STEP_ACCESS: dict[str, FunctionAccess] = {
    # --- create_eks_cluster workflow ---------------------------------------------------------
    "ensure_vpc": FunctionAccess(
        (
            _describe("DescribeVpcs"),
            *_ec2_create("CreateVpc", "vpc"),
            _ec2_managed(("ModifyVpcAttribute",), "vpc"),
        )
    ),
    "ensure_subnets": FunctionAccess(
        (
            _describe("DescribeVpcs", "DescribeSubnets"),
            *_ec2_create("CreateSubnet", "subnet", "vpc"),
            _ec2_managed(("ModifySubnetAttribute",), "subnet"),
        )
    ),
    "ensure_internet_gateway": FunctionAccess(
        (
            _describe("DescribeVpcs", "DescribeInternetGateways"),
            *_ec2_create("CreateInternetGateway", "internet-gateway"),
            _ec2_managed(("AttachInternetGateway",), "internet-gateway", "vpc"),
        )
    ),
    "ensure_nat_gateway": FunctionAccess(
        (
            _describe("DescribeSubnets", "DescribeNatGateways", "DescribeAddresses"),
            *_ec2_create("AllocateAddress", "elastic-ip"),
            *_ec2_create("CreateNatGateway", "natgateway", "subnet", "elastic-ip", "vpc"),
        )
    ),
    "ensure_route_tables": FunctionAccess(
        (
            _describe(
                "DescribeVpcs",
                "DescribeSubnets",
                "DescribeInternetGateways",
                "DescribeNatGateways",
                "DescribeRouteTables",
            ),
            *_ec2_create("CreateRouteTable", "route-table", "vpc"),
            _ec2_managed(("CreateRoute", "ReplaceRoute"), "route-table"),
            _ec2_managed(("AssociateRouteTable",), "route-table", "subnet"),
        )
    ),
    "ensure_s3_endpoint": FunctionAccess(
        (
            _describe("DescribeVpcs", "DescribeVpcEndpoints", "DescribeRouteTables"),
            *_ec2_create("CreateVpcEndpoint", "vpc-endpoint", "vpc", "route-table"),
        )
    ),
    "ensure_security_group": FunctionAccess(
        (
            _describe("DescribeVpcs", "DescribeSecurityGroups"),
            *_ec2_create("CreateSecurityGroup", "security-group", "vpc"),
            _ec2_managed(("AuthorizeSecurityGroupIngress", "AuthorizeSecurityGroupEgress"), "security-group"),
            # The rules themselves are created untagged inside the (managed) group authorized above.
            Grant(
                ("ec2:AuthorizeSecurityGroupIngress", "ec2:AuthorizeSecurityGroupEgress"),
                _ec2("security-group-rule"),
                reason="Rule IDs are generated by AWS; rules are only created inside a security group "
                "that the statement before this one limits to groups tagged as managed by InstantStart",
            ),
        )
    ),
    "ensure_cluster_role": FunctionAccess(
        (
            _READ_CLUSTER_ROLE,
            *_create_role_with_policy(_CLUSTER_ROLES, (EKS_CLUSTER_POLICY,), _CLUSTER_ROLES_REASON)[1:],
        )
    ),
    "create_eks_cluster": FunctionAccess(
        (
            _DESCRIBE_EKS_CLUSTER,
            Grant(("eks:CreateCluster",), ("*",), _MANAGED_REQUEST, _NO_RESOURCE_LEVEL_REASON),
            Grant(("eks:TagResource",), _EKS_CLUSTERS, _MANAGED_REQUEST, _EKS_CLUSTERS_REASON),
            _describe("DescribeSubnets", "DescribeSecurityGroups", "DescribeVpcs"),
            _READ_CLUSTER_ROLE,
            Grant(
                ("iam:PassRole",),
                _CLUSTER_ROLES,
                {"StringEquals": {"iam:PassedToService": EKS_SERVICE_PRINCIPAL}},
                _CLUSTER_ROLES_REASON,
            ),
            # Documented extra: the first EKS cluster of an account creates EKS's service-linked role.
            Grant(
                ("iam:CreateServiceLinkedRole",),
                ("arn:{partition}:iam::{account}:role/aws-service-role/eks.amazonaws.com/AWSServiceRoleForAmazonEKS",),
                {"StringEquals": {"iam:AWSServiceName": EKS_SERVICE_PRINCIPAL}},
            ),
        )
    ),
    "check_eks_cluster": FunctionAccess((_DESCRIBE_EKS_CLUSTER,)),
    "ensure_access_entry": FunctionAccess(
        (
            _DESCRIBE_EKS_CLUSTER,
            Grant(
                ("eks:DescribeAccessEntry", "eks:ListAssociatedAccessPolicies"),
                _ANY_ACCESS_ENTRY,
                reason=_READ_ANY_CLUSTER_REASON,
            ),
            # Creating an access entry can mint cluster admin: only for the control plane's Kubernetes roles.
            Grant(
                ("eks:CreateAccessEntry",),
                _EKS_CLUSTERS,
                {**_KUBERNETES_PRINCIPALS, **_KUBERNETES_ENTRY_GROUPS},
                _EKS_CLUSTERS_REASON,
            ),
            _also_adopted(("eks:CreateAccessEntry",), {**_KUBERNETES_PRINCIPALS, **_KUBERNETES_ENTRY_GROUPS}),
            _associate_access_policy("{kubernetes_role_arn}", ADMIN_ACCESS_POLICY),
            _associate_access_policy("{kubernetes_view_role_arn}", VIEW_ACCESS_POLICY),
            Grant(
                ("eks:TagResource",),
                _ANY_ACCESS_ENTRY,
                _MANAGED_REQUEST,
                "Access entries are tagged when created; EKS assigns their IDs, and the request must carry the "
                "ownership tag",
            ),
            # The job writers' ClusterRole and its binding, applied through the cluster-admin role.
            _ASSUME_KUBERNETES_ROLE,
        ),
        kubernetes_role=ASSUME,
    ),
    "verify_kubernetes_api": FunctionAccess(
        (_DESCRIBE_EKS_CLUSTER, _ASSUME_KUBERNETES_ROLE),
        kubernetes_role=ASSUME,
    ),
    # --- configure_cluster_dependencies workflow ---------------------------------------------
    "ensure_oidc_provider": FunctionAccess(
        (
            _DESCRIBE_EKS_CLUSTER,
            _LIST_OIDC_PROVIDERS,
            Grant(
                ("iam:CreateOpenIDConnectProvider", "iam:TagOpenIDConnectProvider"),
                _OIDC_PROVIDERS,
                _MANAGED_REQUEST,
                _OIDC_PROVIDERS_REASON,
            ),
        )
    ),
    "ensure_s3_csi_driver_role": FunctionAccess(
        (
            _DESCRIBE_EKS_CLUSTER,
            _LIST_OIDC_PROVIDERS,
            _READ_S3_CSI_ROLE,
            Grant(("iam:CreateRole",), _S3_CSI_ROLES, _BOUNDED_REQUEST, _S3_CSI_ROLES_REASON),
            Grant(("iam:TagRole",), _S3_CSI_ROLES, _MANAGED_REQUEST, _S3_CSI_ROLES_REASON),
            # Inline policies only on roles capped by the workload boundary: they can never exceed it.
            Grant(("iam:PutRolePolicy",), _S3_CSI_ROLES, _BOUNDED_RESOURCE, _S3_CSI_ROLES_REASON),
        )
    ),
    "ensure_addons": FunctionAccess(
        (
            _DESCRIBE_EKS_CLUSTER,
            _READ_S3_CSI_ROLE,
            _DESCRIBE_ADDONS,
            _DESCRIBE_ADDON_VERSIONS,
            Grant(("eks:CreateAddon",), _EKS_CLUSTERS, _MANAGED_REQUEST, _EKS_CLUSTERS_REASON),
            _also_adopted(("eks:CreateAddon",), _MANAGED_REQUEST),
            Grant(("eks:TagResource",), _ANY_ADDON, _MANAGED_REQUEST, _OWNED_SUB_RESOURCE_REASON),
            Grant(
                ("iam:PassRole",),
                _S3_CSI_ROLES,
                {"StringEquals": {"iam:PassedToService": EKS_SERVICE_PRINCIPAL}},
                _S3_CSI_ROLES_REASON,
            ),
        )
    ),
    # Reads the nodes (through the Kubernetes access role) when an add-on waits for replicas.
    "check_addons": FunctionAccess(
        (_DESCRIBE_EKS_CLUSTER, _DESCRIBE_ADDONS, _ASSUME_KUBERNETES_ROLE), kubernetes_role=ASSUME
    ),
    "apply_hyperpod_dependencies": FunctionAccess(
        (_DESCRIBE_EKS_CLUSTER, _ASSUME_KUBERNETES_ROLE),
        kubernetes_role=ASSUME,
    ),
    # --- create_hyperpod_cluster workflow -----------------------------------------------------
    "ensure_execution_role": FunctionAccess(
        _create_role_with_policy(_HYPERPOD_EXEC_ROLES, tuple(EXECUTION_ROLE_POLICIES), _STAGE4_ROLES_REASON)
    ),
    "ensure_lifecycle_scripts": FunctionAccess(
        (
            *_buckets(
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
        )
    ),
    "ensure_compute_subnet": FunctionAccess(
        (
            _describe("DescribeVpcs", "DescribeSubnets", "DescribeRouteTables"),
            *_ec2_create("CreateSubnet", "subnet", "vpc"),
            # An imported cluster's compute subnets and route table go into its adopted VPC.
            Grant(("ec2:CreateSubnet", "ec2:CreateRouteTable"), _ec2("vpc"), _ADOPTED, _ADOPTION_TAG_REASON),
            *_ec2_create("CreateRouteTable", "route-table", "vpc"),
            _ec2_managed(("CreateRoute", "ReplaceRoute"), "route-table"),
            _ec2_managed(("AssociateRouteTable",), "route-table", "subnet"),
        )
    ),
    "create_hyperpod_cluster": FunctionAccess(
        (
            _DESCRIBE_HYPERPOD,
            Grant(
                ("sagemaker:CreateCluster", "sagemaker:AddTags"),
                _HYPERPOD_CLUSTERS,
                _MANAGED_REQUEST,
                _HYPERPOD_CLUSTERS_REASON,
            ),
            Grant(("sagemaker:CreateCluster",), _TRAINING_PLANS, reason=_TRAINING_PLANS_REASON),
            _DESCRIBE_EKS_CLUSTER,
            _read_roles(_HYPERPOD_EXEC_ROLES, _STAGE4_ROLES_REASON),
            _PASS_EXECUTION_ROLE,
            _describe("DescribeSubnets", "DescribeSecurityGroups", "DescribeVpcs"),
            # HyperPod creates the access entries of its own roles with the caller's credentials (forward access
            # sessions): allowed only through an AWS service (aws:ViaAWSService; aws:CalledVia is set only by the
            # services the IAM User Guide lists for it, SageMaker not among them), in this deployment's clusters.
            *_HYPERPOD_ACCESS_ENTRIES,
            Grant(
                ("iam:CreateServiceLinkedRole",),
                ("arn:{partition}:iam::{account}:role/aws-service-role/*",),
                {"StringEquals": {"iam:AWSServiceName": "hyperpod.sagemaker.amazonaws.com"}},
                "The service-linked role path is fixed by AWS; the condition admits only HyperPod's",
            ),
        )
    ),
    "check_hyperpod_cluster": FunctionAccess((_DESCRIBE_HYPERPOD,)),
    # Reads the dependency DaemonSets' pods and the nodes through the Kubernetes access role.
    "check_node_agents": FunctionAccess((_DESCRIBE_EKS_CLUSTER, _ASSUME_KUBERNETES_ROLE), kubernetes_role=ASSUME),
    "check_addons_healthy": FunctionAccess((_DESCRIBE_EKS_CLUSTER, _DESCRIBE_ADDONS)),
    "ensure_training_operator_identity": FunctionAccess(
        (
            *_create_role_with_policy(_TRAINING_OPERATOR_ROLES, (TRAINING_OPERATOR_POLICY,), _STAGE4_ROLES_REASON),
            Grant(("eks:ListPodIdentityAssociations",), _ANY_EKS_CLUSTER, reason=_READ_ANY_CLUSTER_REASON),
            Grant(("eks:CreatePodIdentityAssociation",), _EKS_CLUSTERS, reason=_EKS_CLUSTERS_REASON),
            _also_adopted(("eks:CreatePodIdentityAssociation",)),
            Grant(("eks:DescribePodIdentityAssociation",), _ANY_POD_IDENTITY, reason=_READ_ANY_CLUSTER_REASON),
            Grant(("eks:TagResource",), _ANY_POD_IDENTITY, _MANAGED_REQUEST, _OWNED_SUB_RESOURCE_REASON),
            Grant(
                ("iam:PassRole",),
                _TRAINING_OPERATOR_ROLES,
                {"StringEquals": {"iam:PassedToService": POD_IDENTITY_PRINCIPAL}},
                _STAGE4_ROLES_REASON,
            ),
        )
    ),
    # --- instance-group workflows --------------------------------------------------------------
    "add_instance_group": FunctionAccess(
        (
            _DESCRIBE_HYPERPOD,
            _UPDATE_OWN_HYPERPOD,
            # A training-plan group: UpdateCluster is authorized on the plan too (no tag: plans are bought outside).
            Grant(("sagemaker:UpdateCluster",), _TRAINING_PLANS, reason=_TRAINING_PLANS_REASON),
            _read_roles(_HYPERPOD_EXEC_ROLES, _STAGE4_ROLES_REASON),
            _PASS_EXECUTION_ROLE,
            _describe("DescribeSubnets"),
        )
    ),
    "update_instance_group": FunctionAccess(
        (
            _DESCRIBE_HYPERPOD,
            _UPDATE_OWN_HYPERPOD,
            Grant(("sagemaker:UpdateCluster",), _TRAINING_PLANS, reason=_TRAINING_PLANS_REASON),
            # Resending a group resends its execution role.
            _PASS_EXECUTION_ROLE,
        )
    ),
    "check_instance_group": FunctionAccess((_DESCRIBE_HYPERPOD,)),
    "delete_instance_group": FunctionAccess((_DESCRIBE_HYPERPOD, _UPDATE_OWN_HYPERPOD)),
    "check_instance_group_deleted": FunctionAccess((_DESCRIBE_HYPERPOD,)),
    "release_compute_subnet": FunctionAccess((_describe("DescribeSubnets"), _ec2_managed(("DeleteSubnet",), "subnet"))),
    "start_software_update": FunctionAccess(
        (
            _DESCRIBE_HYPERPOD,
            Grant(
                ("sagemaker:UpdateClusterSoftware",), _HYPERPOD_CLUSTERS, _MANAGED_RESOURCE, _HYPERPOD_CLUSTERS_REASON
            ),
        )
    ),
    "check_software_update": FunctionAccess((_DESCRIBE_HYPERPOD,)),
    # --- reboot_nodes / replace_nodes / delete_nodes workflows ------------------------------------
    "reboot_nodes": FunctionAccess((_READ_NODES, _act_on_nodes("sagemaker:BatchRebootClusterNodes"))),
    "replace_nodes": FunctionAccess((_READ_NODES, _act_on_nodes("sagemaker:BatchReplaceClusterNodes"))),
    "delete_nodes": FunctionAccess((_READ_NODES, _act_on_nodes("sagemaker:BatchDeleteClusterNodes"))),
    "check_nodes_rebooted": FunctionAccess((_READ_NODES,)),
    "check_nodes_replaced": FunctionAccess((_READ_NODES,)),
    "check_nodes_deleted": FunctionAccess((_READ_NODES,)),
    # --- download_to_storage workflow --------------------------------------------------------
    "start_download_job": FunctionAccess((_DESCRIBE_EKS_CLUSTER, _ASSUME_KUBERNETES_ROLE), kubernetes_role=ASSUME),
    "check_download_job": FunctionAccess((_DESCRIBE_EKS_CLUSTER, _ASSUME_KUBERNETES_ROLE), kubernetes_role=ASSUME),
    # --- configure_storage workflow -----------------------------------------------------------
    "ensure_data_bucket": FunctionAccess(
        (
            *_buckets(
                ("s3:ListBucket", "s3:GetBucketTagging"),
                ("arn:{partition}:s3:::*",),
                "The caller may name any bucket of this account to mount; this step only checks that it exists "
                "and reads its tags, it never writes to a bucket it did not create",
            ),
            *_buckets(
                (
                    "s3:CreateBucket",
                    "s3:PutBucketPublicAccessBlock",
                    "s3:PutEncryptionConfiguration",
                    "s3:PutBucketPolicy",
                    "s3:PutBucketTagging",
                ),
                ("arn:{partition}:s3:::instantstart-*",),
                "Data buckets are named per cluster tag, account and Region at run time "
                "(<deployment>-<tag>-…); the pattern admits only those",
            ),
        )
    ),
    "grant_bucket_access": FunctionAccess(
        (
            _READ_S3_CSI_ROLE,
            Grant(("iam:PutRolePolicy",), _S3_CSI_ROLES, _BOUNDED_RESOURCE, _S3_CSI_ROLES_REASON),
        )
    ),
    "apply_storage_claim": FunctionAccess(
        (_DESCRIBE_EKS_CLUSTER, _ASSUME_KUBERNETES_ROLE),
        kubernetes_role=ASSUME,
    ),
    "create_fsx_file_system": FunctionAccess(
        (
            _DESCRIBE_FILE_SYSTEMS,
            Grant(("fsx:CreateFileSystem", "fsx:TagResource"), _FILE_SYSTEMS, _MANAGED_REQUEST, _FILE_SYSTEMS_REASON),
            _describe("DescribeSubnets", "DescribeSecurityGroups", "DescribeVpcs"),
            # Documented extra: the first file system of an account creates FSx's service-linked role.
            Grant(
                ("iam:CreateServiceLinkedRole",),
                ("arn:{partition}:iam::{account}:role/aws-service-role/*",),
                {"StringEquals": {"iam:AWSServiceName": "fsx.amazonaws.com"}},
                "The service-linked role path is fixed by AWS; the condition admits only FSx's",
            ),
        )
    ),
    "check_fsx_file_system": FunctionAccess((_DESCRIBE_FILE_SYSTEMS,)),
    "apply_fsx_claim": FunctionAccess(
        (_DESCRIBE_FILE_SYSTEMS, _DESCRIBE_EKS_CLUSTER, _ASSUME_KUBERNETES_ROLE),
        kubernetes_role=ASSUME,
    ),
    # Stores the wait's task token, and ends its own wait when an event came between its check and the store.
    "await_hyperpod_event": FunctionAccess((_SEND_TASK_SUCCESS,), tables=("IS_EVENT_WAITS_TABLE",)),
    "record_operation_success": FunctionAccess(()),
    "record_stage_completed": FunctionAccess(()),
    "record_operation_failure": FunctionAccess(
        (
            Grant(
                ("states:GetExecutionHistory",),
                ("arn:{partition}:states:{region}:{account}:execution:{state_machine_name}:*",),
                reason=_EXECUTIONS_REASON,
            ),
        )
    ),
    # --- HyperPod events of another Region (create_eks_cluster, import_cluster; delete_eks_cluster) ----
    "ensure_event_forwarding": FunctionAccess(
        (
            _READ_FORWARDING_RULES,
            Grant(
                ("events:PutRule", "events:TagResource"), _FORWARDING_RULES, _MANAGED_REQUEST, _FORWARDING_RULES_REASON
            ),
            # Its one target: the home Region's default bus, reached as the stack's forwarding role.
            Grant(
                ("events:PutTargets",),
                _FORWARDING_RULES,
                {**_MANAGED_RESOURCE, "ArnEquals": {"events:TargetArn": _HOME_BUS}},
                _FORWARDING_RULES_REASON,
            ),
            Grant(
                ("iam:PassRole",),
                ("{event_forwarding_role_arn}",),
                {"StringEquals": {"iam:PassedToService": "events.amazonaws.com"}},
            ),
        ),
    ),
    "remove_event_forwarding": FunctionAccess(
        (
            _READ_FORWARDING_RULES,
            Grant(
                ("events:RemoveTargets", "events:DeleteRule"),
                _FORWARDING_RULES,
                _MANAGED_RESOURCE,
                _FORWARDING_RULES_REASON,
            ),
        ),
    ),
    # --- import_cluster workflow (plus ensure_access_entry and verify_kubernetes_api) ----------
    "tag_imported_cluster": FunctionAccess(
        (
            _DESCRIBE_EKS_CLUSTER,
            Grant(("eks:TagResource",), _ANY_EKS_CLUSTER, _ADOPTION_TAG_ONLY, _ADOPTION_TAG_REASON),
            _describe("DescribeVpcs"),
            Grant(("ec2:CreateTags",), _ec2("vpc"), _ADOPTION_TAG_ONLY, _ADOPTION_TAG_REASON),
        )
    ),
    "discover_cluster_network": FunctionAccess(
        (_DESCRIBE_EKS_CLUSTER, _describe("DescribeVpcs", "DescribeRouteTables"))
    ),
    "discover_cluster_stages": FunctionAccess(
        (_DESCRIBE_EKS_CLUSTER, _LIST_OIDC_PROVIDERS, _DESCRIBE_ADDONS, _DESCRIBE_HYPERPOD, _ASSUME_KUBERNETES_ROLE),
        kubernetes_role=ASSUME,
    ),
    # --- delete_eks_cluster workflow ---------------------------------------------------------
    "release_imported_cluster": FunctionAccess(
        (
            _DESCRIBE_EKS_CLUSTER,
            _ASSUME_KUBERNETES_ROLE,
            Grant(("eks:DescribeAccessEntry",), _ANY_ACCESS_ENTRY, reason=_READ_ANY_CLUSTER_REASON),
            Grant(
                ("eks:DeleteAccessEntry",),
                _ANY_ACCESS_ENTRY,
                {"StringEquals": {**_KUBERNETES_PRINCIPALS["StringEquals"], **_MANAGED_RESOURCE["StringEquals"]}},
                _OWNED_SUB_RESOURCE_REASON,
            ),
            _DESCRIBE_ADDONS,
            Grant(("eks:DeleteAddon",), _ANY_ADDON, _MANAGED_RESOURCE, _OWNED_SUB_RESOURCE_REASON),
            Grant(("eks:ListPodIdentityAssociations",), _ANY_EKS_CLUSTER, reason=_READ_ANY_CLUSTER_REASON),
            Grant(("eks:DescribePodIdentityAssociation",), _ANY_POD_IDENTITY, reason=_READ_ANY_CLUSTER_REASON),
            Grant(
                ("eks:DeletePodIdentityAssociation",), _ANY_POD_IDENTITY, _MANAGED_RESOURCE, _OWNED_SUB_RESOURCE_REASON
            ),
            Grant(("eks:UntagResource",), _ANY_EKS_CLUSTER, _ADOPTION_TAG_ONLY, _ADOPTION_TAG_REASON),
            _describe("DescribeVpcs"),
            Grant(("ec2:DeleteTags",), _ec2("vpc"), _ADOPTION_TAG_ONLY, _ADOPTION_TAG_REASON),
        ),
        kubernetes_role=ASSUME,
    ),
    "delete_hyperpod_cluster": FunctionAccess(
        (
            _DESCRIBE_HYPERPOD,
            Grant(("sagemaker:DeleteCluster",), _HYPERPOD_CLUSTERS, _MANAGED_RESOURCE, _HYPERPOD_CLUSTERS_REASON),
        )
    ),
    "check_hyperpod_cluster_deleted": FunctionAccess((_DESCRIBE_HYPERPOD,)),
    "delete_hyperpod_resources": FunctionAccess(
        (
            *_delete_roles(_HYPERPOD_EXEC_ROLES + _TRAINING_OPERATOR_ROLES, _STAGE4_ROLES_REASON),
            *_buckets(
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
        )
    ),
    "delete_fsx_file_systems": FunctionAccess(
        (
            _DESCRIBE_FILE_SYSTEMS,
            Grant(("fsx:DeleteFileSystem",), _FILE_SYSTEMS, _MANAGED_RESOURCE, _FILE_SYSTEMS_REASON),
        )
    ),
    "check_fsx_file_systems_deleted": FunctionAccess((_DESCRIBE_FILE_SYSTEMS,)),
    "delete_eks_cluster": FunctionAccess(
        (
            _DESCRIBE_EKS_CLUSTER,
            Grant(("eks:DeleteCluster",), _EKS_CLUSTERS, _MANAGED_RESOURCE, _EKS_CLUSTERS_REASON),
        )
    ),
    "check_eks_cluster_deleted": FunctionAccess((_DESCRIBE_EKS_CLUSTER,)),
    "delete_cluster_role": FunctionAccess(
        (
            Grant(
                ("iam:GetRole", "iam:ListAttachedRolePolicies", "iam:ListRoleTags", "iam:ListRolePolicies"),
                _CLUSTER_ROLES,
                reason=_CLUSTER_ROLES_REASON,
            ),
            Grant(
                ("iam:DetachRolePolicy", "iam:DeleteRolePolicy", "iam:DeleteRole"),
                _CLUSTER_ROLES,
                _MANAGED_RESOURCE,
                _CLUSTER_ROLES_REASON,
            ),
        )
    ),
    "delete_dependency_identities": FunctionAccess(
        (
            _READ_S3_CSI_ROLE,
            Grant(
                ("iam:DetachRolePolicy", "iam:DeleteRolePolicy", "iam:DeleteRole"),
                _S3_CSI_ROLES,
                _MANAGED_RESOURCE,
                _S3_CSI_ROLES_REASON,
            ),
            _LIST_OIDC_PROVIDERS,
            Grant(("iam:ListOpenIDConnectProviderTags",), _OIDC_PROVIDERS, reason=_OIDC_PROVIDERS_REASON),
            Grant(("iam:DeleteOpenIDConnectProvider",), _OIDC_PROVIDERS, _MANAGED_RESOURCE, _OIDC_PROVIDERS_REASON),
        )
    ),
    # What features created outside the clusters (roles, policies), removed after the clusters are gone.
    "delete_feature_identities": FunctionAccess(
        (
            *_delete_roles(_FSX_CSI_ROLES + _OBSERVABILITY_ROLES, _FEATURE_ROLES_REASON),
            *_READ_WORKSPACES,
            _DELETE_WORKSPACE,
            *_READ_TIERED,
            *_delete_roles(_TIERED_ROLES, _TIERED_REASON),
            Grant(
                ("iam:ListPolicyVersions", "iam:DeletePolicyVersion", "iam:DeletePolicy"),
                _TIERED_POLICIES,
                _MANAGED_RESOURCE,
                _TIERED_REASON,
            ),
            *_delete_roles(_INFERENCE_ROLES, _INFERENCE_ROLES_REASON),
            *_EMPTY_TLS_BUCKETS,
            *_delete_roles(_KARPENTER_ROLES, _KARPENTER_ROLES_REASON),
            *_delete_roles(_JOB_ROLES, _JOB_ROLES_REASON),
        )
    ),
    # --- update_cluster_features workflow ------------------------------------------------------
    "ensure_cert_manager": FunctionAccess((*_FEATURE_FACTS, *_CREATE_ADDON), kubernetes_role=ASSUME),
    "remove_cert_manager": FunctionAccess((*_FEATURE_FACTS, *_DELETE_ADDON)),
    "ensure_training_operator": FunctionAccess(
        (*_FEATURE_FACTS, *_CREATE_ADDON, *_ENSURE_JOB_IDENTITY), kubernetes_role=ASSUME
    ),
    "remove_training_operator": FunctionAccess(
        (*_FEATURE_FACTS, *_DELETE_ADDON, *_REMOVE_JOB_IDENTITY), kubernetes_role=ASSUME
    ),
    "ensure_tiered_storage": FunctionAccess(
        (
            *_FEATURE_FACTS,
            *_READ_TIERED,
            Grant(
                ("iam:CreateOpenIDConnectProvider", "iam:TagOpenIDConnectProvider"),
                _OIDC_PROVIDERS,
                _MANAGED_REQUEST,
                _OIDC_PROVIDERS_REASON,
            ),
            Grant(("iam:CreatePolicy", "iam:TagPolicy"), _TIERED_POLICIES, _MANAGED_REQUEST, _TIERED_REASON),
            # Like the S3 CSI role: created only with the workload boundary, so its policy can never exceed it.
            Grant(("iam:CreateRole",), _TIERED_ROLES, _BOUNDED_REQUEST, _TIERED_REASON),
            Grant(("iam:TagRole",), _TIERED_ROLES, _MANAGED_REQUEST, _TIERED_REASON),
            Grant(
                ("iam:AttachRolePolicy",),
                _TIERED_ROLES,
                {"ArnLike": {"iam:PolicyARN": _TIERED_POLICIES[0]}, **_BOUNDED_RESOURCE},
                _TIERED_REASON,
            ),
            _UPDATE_HYPERPOD,
            _KUBERNETES,
        ),
        kubernetes_role=ASSUME,
    ),
    "remove_tiered_storage": FunctionAccess(
        (
            *_FEATURE_FACTS,
            *_READ_TIERED,
            *_delete_roles(_TIERED_ROLES, _TIERED_REASON),
            Grant(
                ("iam:ListPolicyVersions", "iam:DeletePolicyVersion", "iam:DeletePolicy"),
                _TIERED_POLICIES,
                _MANAGED_RESOURCE,
                _TIERED_REASON,
            ),
            Grant(("iam:ListOpenIDConnectProviderTags",), _OIDC_PROVIDERS, reason=_OIDC_PROVIDERS_REASON),
            Grant(("iam:DeleteOpenIDConnectProvider",), _OIDC_PROVIDERS, _MANAGED_RESOURCE, _OIDC_PROVIDERS_REASON),
            _UPDATE_HYPERPOD,
            _KUBERNETES,
        ),
        kubernetes_role=ASSUME,
    ),
    "ensure_kuberay_operator": FunctionAccess((*_FEATURE_FACTS, _KUBERNETES), kubernetes_role=ASSUME),
    "remove_kuberay_operator": FunctionAccess((*_FEATURE_FACTS, _KUBERNETES), kubernetes_role=ASSUME),
    "ensure_fsx_csi_driver": FunctionAccess(
        (
            *_FEATURE_FACTS,
            *_CREATE_ADDON,
            _LIST_OIDC_PROVIDERS,
            *_create_role_with_policy(_FSX_CSI_ROLES, (FSX_CSI_POLICY,), _FEATURE_ROLES_REASON),
            Grant(
                ("iam:PassRole",),
                _FSX_CSI_ROLES,
                {"StringEquals": {"iam:PassedToService": EKS_SERVICE_PRINCIPAL}},
                _FEATURE_ROLES_REASON,
            ),
        ),
        kubernetes_role=ASSUME,
    ),
    "remove_fsx_csi_driver": FunctionAccess(
        (*_FEATURE_FACTS, *_DELETE_ADDON, *_delete_roles(_FSX_CSI_ROLES, _FEATURE_ROLES_REASON))
    ),
    "ensure_observability": FunctionAccess(
        (
            *_FEATURE_FACTS,
            *_READ_WORKSPACES,
            *_CREATE_WORKSPACE,
            # A workspace that failed to create is deleted and made again.
            _DELETE_WORKSPACE,
            *_CREATE_ADDON,
            *_create_role_with_policy(_OBSERVABILITY_ROLES, OBSERVABILITY_POLICIES, _FEATURE_ROLES_REASON),
            Grant(
                ("iam:PassRole",),
                _OBSERVABILITY_ROLES,
                {"StringEquals": {"iam:PassedToService": POD_IDENTITY_PRINCIPAL}},
                _FEATURE_ROLES_REASON,
            ),
            # CreateAddon creates the add-on's own pod identity association.
            Grant(("eks:CreatePodIdentityAssociation",), _EKS_CLUSTERS, reason=_EKS_CLUSTERS_REASON),
            _also_adopted(("eks:CreatePodIdentityAssociation",)),
            Grant(("eks:TagResource",), _ANY_POD_IDENTITY, _MANAGED_REQUEST, _OWNED_SUB_RESOURCE_REASON),
        ),
        kubernetes_role=ASSUME,
    ),
    "remove_observability": FunctionAccess(
        (
            *_FEATURE_FACTS,
            *_DELETE_ADDON,
            *_delete_roles(_OBSERVABILITY_ROLES, _FEATURE_ROLES_REASON),
            *_READ_WORKSPACES,
            _DELETE_WORKSPACE,
        )
    ),
    "ensure_inference_operator": FunctionAccess(
        (
            *_FEATURE_FACTS,
            # Also reads the stage 3 add-ons it needs ACTIVE.
            *_CREATE_ADDON,
            _LIST_OIDC_PROVIDERS,
            *_create_role_with_policy(_INFERENCE_ROLES, (INFERENCE_OPERATOR_POLICY,), _INFERENCE_ROLES_REASON),
            # The role reaches the add-on in its configuration values, so EKS is never passed it (no PassRole).
            *_READ_TLS_BUCKETS,
            *_buckets(
                (
                    "s3:CreateBucket",
                    "s3:PutBucketTagging",
                    "s3:PutBucketPublicAccessBlock",
                    "s3:PutEncryptionConfiguration",
                    "s3:PutBucketPolicy",
                ),
                _TLS_BUCKETS,
                _TLS_BUCKETS_REASON,
            ),
        ),
        kubernetes_role=ASSUME,
    ),
    "remove_inference_operator": FunctionAccess(
        (
            *_FEATURE_FACTS,
            *_DELETE_ADDON,
            *_delete_roles(_INFERENCE_ROLES, _INFERENCE_ROLES_REASON),
            *_EMPTY_TLS_BUCKETS,
        )
    ),
    "ensure_karpenter": FunctionAccess(
        (
            *_FEATURE_FACTS,
            _READ_KARPENTER_ROLES,
            # Created only with the autoscaling boundary, so its inline policy can never exceed node batch actions.
            Grant(
                ("iam:CreateRole",),
                _KARPENTER_ROLES,
                {"StringEquals": {**_MANAGED_REQUEST["StringEquals"], **_AUTOSCALING_BOUNDED}},
                _KARPENTER_ROLES_REASON,
            ),
            Grant(("iam:TagRole",), _KARPENTER_ROLES, _MANAGED_REQUEST, _KARPENTER_ROLES_REASON),
            Grant(
                ("iam:PutRolePolicy",),
                _KARPENTER_ROLES,
                {"StringEquals": {**_MANAGED_RESOURCE["StringEquals"], **_AUTOSCALING_BOUNDED}},
                _KARPENTER_ROLES_REASON,
            ),
            Grant(
                ("iam:PassRole",),
                _KARPENTER_ROLES,
                {"StringEquals": {"iam:PassedToService": SAGEMAKER_PRINCIPAL}},
                _KARPENTER_ROLES_REASON,
            ),
            _UPDATE_HYPERPOD,
            _KUBERNETES,
        ),
        kubernetes_role=ASSUME,
    ),
    "remove_karpenter": FunctionAccess(
        (
            *_FEATURE_FACTS,
            *_delete_roles(_KARPENTER_ROLES, _KARPENTER_ROLES_REASON),
            _UPDATE_HYPERPOD,
            _KUBERNETES,
        ),
        kubernetes_role=ASSUME,
    ),
    "release_nat_gateway": FunctionAccess(
        (
            _describe("DescribeVpcEndpoints", "DescribeNatGateways"),
            _ec2_managed(("DeleteVpcEndpoints",), "vpc-endpoint"),
            _ec2_managed(("DeleteNatGateway",), "natgateway"),
        )
    ),
    "delete_network": FunctionAccess(
        (
            _describe(
                "DescribeAddresses",
                "DescribeInternetGateways",
                "DescribeSubnets",
                "DescribeRouteTables",
                "DescribeSecurityGroups",
                "DescribeVpcs",
            ),
            _ec2_managed(("ReleaseAddress",), "elastic-ip"),
            _ec2_managed(("DetachInternetGateway",), "internet-gateway", "vpc"),
            _ec2_managed(("DeleteInternetGateway",), "internet-gateway"),
            _ec2_managed(("DeleteSubnet",), "subnet"),
            _ec2_managed(("DisassociateRouteTable",), "route-table", "subnet"),
            _ec2_managed(("DeleteRouteTable",), "route-table"),
            _ec2_managed(("DeleteSecurityGroup",), "security-group"),
            _ec2_managed(("DeleteVpc",), "vpc"),
        )
    ),
}

API_ACCESS = FunctionAccess(
    (
        # Request validation and the catalog: zones, VPC CIDRs in use, instance offerings, training plans.
        _describe("DescribeVpcs", "DescribeAvailabilityZones", "DescribeInstanceTypeOfferings"),
        Grant(("sagemaker:ListTrainingPlans",), ("*",), reason=_NO_RESOURCE_LEVEL_REASON),
        Grant(("sagemaker:DescribeTrainingPlan",), _TRAINING_PLANS, reason=_TRAINING_PLANS_REASON),
        # Pre-flight: the quotas a request needs (found by name, read by code) and the usage counted against them,
        # every resource of the Region (HyperPod instances of any cluster, VPCs, gateways, addresses, EKS clusters).
        Grant(("servicequotas:GetServiceQuota",), _PREFLIGHT_QUOTAS, reason=_PREFLIGHT_QUOTAS_REASON),
        # The quota lists and usage counts of pre-flight, and the on-demand prices of GET …/cost (Price List API).
        Grant(
            ("servicequotas:ListServiceQuotas", "sagemaker:ListClusters", "eks:ListClusters", "pricing:GetProducts"),
            ("*",),
            reason=_NO_RESOURCE_LEVEL_REASON,
        ),
        _describe("DescribeInternetGateways", "DescribeAddresses", "DescribeNatGateways", "DescribeSubnets"),
        # Live reads behind cluster detail, status, instance groups and nodes.
        _DESCRIBE_EKS_CLUSTER,
        _DESCRIBE_HYPERPOD,
        # The node list, and each node a node action names (checked before its operation starts).
        _READ_NODES,
        # Nodes' Ready state and health labels, and the pods an instance-group deletion would strand: read through
        # the view role, which every cluster's access entry limits to AmazonEKSViewPolicy.
        Grant(("sts:AssumeRole",), ("{kubernetes_view_role_arn}",)),
        # Submitting and deleting training jobs and managed endpoints: signed as the jobs role, whose access entry names
        # only the job writers' group (RBAC: job and endpoint objects, nothing else).
        Grant(("sts:AssumeRole",), ("{kubernetes_jobs_role_arn}",)),
        # Chat with a managed inference endpoint: the SageMaker endpoint its operator registered (is-<tag>-<name>).
        Grant(
            ("sagemaker:InvokeEndpoint",),
            ("arn:{partition}:sagemaker:*:{account}:endpoint/is-*",),
            reason="Managed endpoints are named is-<clusterTag>-<name> at run time, in the Region of their cluster; "
            "the API only invokes them",
        ),
        _START_EXECUTION,
        # GET /clusters/{clusterTag}/mlflow-tracking-servers, and the tracking server a recipe job chooses.
        Grant(("sagemaker:ListMlflowTrackingServers",), ("*",), reason=_NO_RESOURCE_LEVEL_REASON),
        Grant(
            ("sagemaker:DescribeMlflowTrackingServer",),
            ("arn:{partition}:sagemaker:*:{account}:mlflow-tracking-server/*",),
            reason="A job may log to any MLflow tracking server of the account (the person chooses it by name); "
            "the API only reads its ARN",
        ),
        # GET /clusters/{clusterTag}/features reads every feature live (the PATCH diffs against it); POST …/drift
        # reads the add-on versions EKS offers when an add-on is not at its pin.
        _DESCRIBE_ADDONS,
        _DESCRIBE_ADDON_VERSIONS,
        *_READ_TIERED,
        _read_roles(_FSX_CSI_ROLES + _OBSERVABILITY_ROLES, _FEATURE_ROLES_REASON),
        *_READ_WORKSPACES,
        _read_roles(_INFERENCE_ROLES, _INFERENCE_ROLES_REASON),
        _read_roles(_KARPENTER_ROLES, _KARPENTER_ROLES_REASON),
        _read_roles(_JOB_ROLES, _JOB_ROLES_REASON),
        *_READ_POD_IDENTITIES,
        *_READ_TLS_BUCKETS,
        # GET /clusters/{clusterTag}/storage/contents lists the S3 claim's keys.
        *_buckets(
            ("s3:ListBucket",),
            ("arn:{partition}:s3:::*",),
            "The S3 claim may be any bucket of this account that the storage stage mounted (its own or one the "
            "caller named); the API only lists its keys",
        ),
        Grant(
            ("states:StopExecution",),
            ("arn:{partition}:states:{region}:{account}:execution:{state_machine_name}:*",),
            reason=_EXECUTIONS_REASON,
        ),
    ),
    tables=(
        "IS_OPERATIONS_TABLE",
        "IS_CLUSTERS_TABLE",
        "IS_AUDIT_TABLE",
        "IS_CONFIRMATIONS_TABLE",
        "IS_IDEMPOTENCY_TABLE",
        "IS_RECIPE_VALUES_TABLE",
        "IS_DRIFT_TABLE",
    ),
)

# The scheduled drift reconcile (`infra.drift`): the reads a drift check makes of every registered cluster, and
# the registry, the operations and the drift reports. It changes nothing in any cluster.
DRIFT_ACCESS = FunctionAccess(
    (
        _DESCRIBE_EKS_CLUSTER,
        _DESCRIBE_HYPERPOD,
        _DESCRIBE_ADDONS,
        # An add-on at another version than its pin: is it the one the stages install on the cluster's Kubernetes?
        _DESCRIBE_ADDON_VERSIONS,
        _read_roles(_TIERED_ROLES, _TIERED_REASON),
        Grant(("iam:GetPolicy", "iam:ListPolicyTags"), _TIERED_POLICIES, reason=_TIERED_REASON),
        _read_roles(_FSX_CSI_ROLES + _OBSERVABILITY_ROLES, _FEATURE_ROLES_REASON),
        _read_roles(_INFERENCE_ROLES, _INFERENCE_ROLES_REASON),
        _read_roles(_KARPENTER_ROLES, _KARPENTER_ROLES_REASON),
        # Service accounts and claims, read through the view role (AmazonEKSViewPolicy on every cluster).
        Grant(("sts:AssumeRole",), ("{kubernetes_view_role_arn}",)),
    ),
    tables=("IS_OPERATIONS_TABLE", "IS_CLUSTERS_TABLE", "IS_DRIFT_TABLE"),
)

# The HyperPod events function (`infra.events`): records each event, ends the waits it wakes, and starts the node
# operation a remediation policy decides on, as the API would (the node's state read first).
EVENTS_ACCESS = FunctionAccess(
    (
        Grant(("sagemaker:DescribeClusterNode",), _HYPERPOD_CLUSTERS, reason=_HYPERPOD_READS_REASON),
        _START_EXECUTION,
        _SEND_TASK_SUCCESS,
    ),
    tables=("IS_EVENTS_TABLE", "IS_EVENT_WAITS_TABLE", "IS_CLUSTERS_TABLE", "IS_OPERATIONS_TABLE", "IS_AUDIT_TABLE"),
)

# The remote MCP server calls the API as itself, over the SigV4 routes only; it touches no table and no
# AWS resource. The API still authorizes each call (the weaker of the server's and its user's role).
MCP_ACCESS = FunctionAccess(
    (
        Grant(
            ("execute-api:Invoke",),
            ("arn:{partition}:execute-api:{region}:{account}:{rest_api_id}/{stage}/*/iam/*",),
            reason="The MCP server's tools are the API's operations, so it may call every method of the SigV4 "
            "routes (/iam/*) of this API's stage, and nothing else: not the Cognito routes, not other APIs",
        ),
    ),
    tables=(),
)

# The role EventBridge assumes in other Regions to deliver their HyperPod events here (`infra.events`): one action,
# on this Region's default bus.
EVENT_FORWARDING_GRANTS = (Grant(("events:PutEvents",), (_HOME_BUS,)),)

# What the Kubernetes access and view roles themselves may do (they are signing identities; cluster access comes
# from the EKS access entries that ensure_access_entry creates for them).
KUBERNETES_ROLE_GRANTS = (_DESCRIBE_EKS_CLUSTER,)
