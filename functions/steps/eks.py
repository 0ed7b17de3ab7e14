"""The EKS control plane's steps: its cluster role, the cluster, the control plane's access entries (and the job
writers' RBAC inside it) and the proof that the Kubernetes API answers; their deletion. EKS names are the control
plane's deterministic ones; an imported cluster is changed only while it carries the adoption tag."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.conditions import DEPLOYMENT, MANAGED_REQUEST, MANAGED_RESOURCE
from controlplane.access.ec2 import describe
from controlplane.access.eks import (
    ANY_ACCESS_ENTRY,
    DESCRIBE_EKS_CLUSTER,
    EKS_CLUSTERS,
    EKS_CLUSTERS_REASON,
    KUBERNETES_PRINCIPALS,
    READ_ANY_CLUSTER_REASON,
    also_adopted,
)
from controlplane.access.grant import ASSUME_KUBERNETES_ROLE, NO_RESOURCE_LEVEL_REASON, Grant
from controlplane.access.iam import create_role_with_policy, delete_roles, pass_role, role_arns
from controlplane.core.identity import (
    ADMIN_ACCESS_POLICY,
    EKS_CLUSTER_POLICY,
    EKS_SERVICE_PRINCIPAL,
    VIEW_ACCESS_POLICY,
)
from controlplane.core.naming import JOB_WRITERS_GROUP, VIEWERS_GROUP, eks_cluster_role_name
from controlplane.models.workflow import DeleteEksClusterInput, EksStageInput, WorkflowState
from steps.groups import EKS_CLUSTER, EKS_CLUSTER_REMOVAL, KUBERNETES
from steps.step import work

_CLUSTER_ROLES = role_arns(eks_cluster_role_name)
_CLUSTER_ROLES_REASON = (
    "Cluster roles are created per cluster tag at run time; the pattern admits only the control "
    f"plane's deterministic role names ({eks_cluster_role_name(DEPLOYMENT, '<tag>')})"
)
_READ_CLUSTER_ROLE = Grant(
    ("iam:GetRole", "iam:ListAttachedRolePolicies", "iam:ListRoleTags"), _CLUSTER_ROLES, reason=_CLUSTER_ROLES_REASON
)
# An access entry the steps create or update names no Kubernetes group but the job writers' and the viewers' (never
# system:masters).
_KUBERNETES_ENTRY_GROUPS = {"ForAllValues:StringEquals": {"eks:kubernetesGroups": [JOB_WRITERS_GROUP, VIEWERS_GROUP]}}


def _associate_access_policy(principal: str, policy: str) -> Grant:
    """One principal may get one EKS access policy (cluster admin for the steps' role, view for the API's)."""
    return Grant(
        ("eks:AssociateAccessPolicy",),
        ANY_ACCESS_ENTRY,
        {
            "StringEquals": {
                "eks:policyArn": f"arn:{{partition}}:eks::aws:cluster-access-policy/{policy}",
                "eks:principalArn": principal,
            }
        },
        "Access entry ARNs end in a UUID that EKS assigns; the condition pairs the control plane's own role with "
        f"its one access policy, {policy} (the entry itself exists only where CreateAccessEntry was allowed)",
    )


STEPS = (
    work(
        "Ensure Cluster Role",
        EKS_CLUSTER,
        EksStageInput,
        lambda ctx: wiring.eks_stack(ctx.region).ensure_cluster_role(ctx),
        (
            _READ_CLUSTER_ROLE,
            *create_role_with_policy(_CLUSTER_ROLES, (EKS_CLUSTER_POLICY,), _CLUSTER_ROLES_REASON)[1:],
        ),
    ),
    work(
        "Create EKS Cluster",
        EKS_CLUSTER,
        EksStageInput,
        lambda ctx: wiring.eks_stack(ctx.region).create_eks_cluster(ctx),
        (
            DESCRIBE_EKS_CLUSTER,
            Grant(("eks:CreateCluster",), ("*",), MANAGED_REQUEST, NO_RESOURCE_LEVEL_REASON),
            Grant(("eks:TagResource",), EKS_CLUSTERS, MANAGED_REQUEST, EKS_CLUSTERS_REASON),
            describe("DescribeSubnets", "DescribeSecurityGroups", "DescribeVpcs"),
            _READ_CLUSTER_ROLE,
            pass_role(_CLUSTER_ROLES, EKS_SERVICE_PRINCIPAL, _CLUSTER_ROLES_REASON),
            # Documented extra: the first EKS cluster of an account creates EKS's service-linked role.
            Grant(
                ("iam:CreateServiceLinkedRole",),
                ("arn:{partition}:iam::{account}:role/aws-service-role/eks.amazonaws.com/AWSServiceRoleForAmazonEKS",),
                {"StringEquals": {"iam:AWSServiceName": EKS_SERVICE_PRINCIPAL}},
            ),
        ),
        waiting="Waiting for {clusterName} to become ACTIVE",
    ),
    work(
        "Check EKS Cluster",
        EKS_CLUSTER,
        EksStageInput,
        lambda ctx: wiring.eks_stack(ctx.region).check_eks_cluster(ctx),
        (DESCRIBE_EKS_CLUSTER,),
        settled="{eksClusterName} is ACTIVE",
    ),
    work(
        "Ensure Access Entry",
        EKS_CLUSTER,
        WorkflowState,
        lambda ctx: wiring.eks_stack(ctx.region).ensure_access_entry(ctx),
        (
            DESCRIBE_EKS_CLUSTER,
            Grant(
                ("eks:DescribeAccessEntry", "eks:ListAssociatedAccessPolicies"),
                ANY_ACCESS_ENTRY,
                reason=READ_ANY_CLUSTER_REASON,
            ),
            # Creating an access entry can mint cluster admin: only for the control plane's Kubernetes roles.
            Grant(
                ("eks:CreateAccessEntry",),
                EKS_CLUSTERS,
                {**KUBERNETES_PRINCIPALS, **_KUBERNETES_ENTRY_GROUPS},
                EKS_CLUSTERS_REASON,
            ),
            also_adopted(("eks:CreateAccessEntry",), {**KUBERNETES_PRINCIPALS, **_KUBERNETES_ENTRY_GROUPS}),
            # An entry made before it named its group gets it.
            Grant(
                ("eks:UpdateAccessEntry",),
                ANY_ACCESS_ENTRY,
                {**KUBERNETES_PRINCIPALS, **_KUBERNETES_ENTRY_GROUPS},
                "Access entry ARNs end in a UUID that EKS assigns; the conditions admit only the control plane's own "
                "roles and its own Kubernetes groups",
            ),
            _associate_access_policy("{kubernetes_role_arn}", ADMIN_ACCESS_POLICY),
            _associate_access_policy("{kubernetes_view_role_arn}", VIEW_ACCESS_POLICY),
            Grant(
                ("eks:TagResource",),
                ANY_ACCESS_ENTRY,
                MANAGED_REQUEST,
                "Access entries are tagged when created; EKS assigns their IDs, and the request must carry the "
                "ownership tag",
            ),
            # The job writers' ClusterRole and its binding, applied through the cluster-admin role.
            ASSUME_KUBERNETES_ROLE,
        ),
    ),
    work(
        "Verify Kubernetes API",
        KUBERNETES,
        WorkflowState,
        lambda ctx: wiring.eks_stack(ctx.region).verify_kubernetes_api(ctx),
        (DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE),
    ),
    work(
        "Delete EKS Cluster",
        EKS_CLUSTER_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.eks_stack(ctx.region).delete_eks_cluster(ctx),
        (
            DESCRIBE_EKS_CLUSTER,
            Grant(("eks:DeleteCluster",), EKS_CLUSTERS, MANAGED_RESOURCE, EKS_CLUSTERS_REASON),
        ),
        waiting="Waiting for {clusterName} to be deleted",
    ),
    work(
        "Check EKS Cluster Deleted",
        EKS_CLUSTER_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.eks_stack(ctx.region).check_eks_cluster_deleted(ctx),
        (DESCRIBE_EKS_CLUSTER,),
        settled="{eksClusterName} is {status}",
    ),
    work(
        "Delete Cluster Role",
        EKS_CLUSTER_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.eks_stack(ctx.region).delete_cluster_role(ctx),
        delete_roles(_CLUSTER_ROLES, _CLUSTER_ROLES_REASON),
    ),
)
