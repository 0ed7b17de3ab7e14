"""IAM grants: the roles the steps create, named `<deployment>-<tag>-…` by `controlplane.core.naming` (read, created
within a permissions boundary with the AWS managed policies they are made for, deleted only while tagged as ours), and
the clusters' OIDC providers. The feature roles' names are in `controlplane.access.features`."""

from __future__ import annotations

from collections.abc import Callable

from controlplane.access.conditions import (
    BOUNDED_RESOURCE,
    DEPLOYMENT,
    MANAGED_REQUEST,
    MANAGED_RESOURCE,
    SERVICE_BOUNDED_REQUEST,
    SERVICE_BOUNDED_RESOURCE,
)
from controlplane.access.grant import NO_RESOURCE_LEVEL_REASON, Grant
from controlplane.core.naming import Deployment, s3_csi_role_name


def role_arns(name: Callable[[Deployment, str], str]) -> tuple[str, ...]:
    """The ARN pattern of one kind of role the steps create, for every cluster tag."""
    return (f"arn:{{partition}}:iam::{{account}}:role/{name(DEPLOYMENT, '*')}",)


def pass_role(roles: tuple[str, ...], service: str, reason: str = "") -> Grant:
    """PassRole of `roles` to one service principal only."""
    return Grant(("iam:PassRole",), roles, {"StringEquals": {"iam:PassedToService": service}}, reason)


def read_roles(roles: tuple[str, ...], reason: str) -> Grant:
    return Grant(
        ("iam:GetRole", "iam:ListAttachedRolePolicies", "iam:ListRoleTags", "iam:ListRolePolicies"),
        roles,
        reason=reason,
    )


def create_role_with_policy(roles: tuple[str, ...], policies: tuple[str, ...], reason: str) -> tuple[Grant, ...]:
    """Create a role within the service boundary and attach the AWS managed policies it is made for."""
    return (
        read_roles(roles, reason),
        Grant(("iam:CreateRole",), roles, SERVICE_BOUNDED_REQUEST, reason),
        Grant(("iam:TagRole",), roles, MANAGED_REQUEST, reason),
        Grant(
            ("iam:AttachRolePolicy",),
            roles,
            {
                "ArnEquals": {"iam:PolicyARN": [DEPLOYMENT.managed_policy_arn(name) for name in policies]},
                **SERVICE_BOUNDED_RESOURCE,
            },
            reason,
        ),
    )


def delete_roles(roles: tuple[str, ...], reason: str) -> tuple[Grant, ...]:
    return (
        read_roles(roles, reason),
        Grant(("iam:DetachRolePolicy", "iam:DeleteRolePolicy", "iam:DeleteRole"), roles, MANAGED_RESOURCE, reason),
    )


# Every cluster's OIDC provider (IRSA): found by listing, created tagged as ours, deleted only while it is.
_OIDC_PROVIDERS = ("arn:{partition}:iam::{account}:oidc-provider/oidc.eks.*.{url_suffix}/id/*",)
_OIDC_PROVIDERS_REASON = (
    "EKS assigns each cluster's OIDC issuer ID at creation; the pattern admits only EKS issuers of this account"
)
LIST_OIDC_PROVIDERS = Grant(("iam:ListOpenIDConnectProviders",), ("*",), reason=NO_RESOURCE_LEVEL_REASON)
CREATE_OIDC_PROVIDER = Grant(
    ("iam:CreateOpenIDConnectProvider", "iam:TagOpenIDConnectProvider"),
    _OIDC_PROVIDERS,
    MANAGED_REQUEST,
    _OIDC_PROVIDERS_REASON,
)
DELETE_OIDC_PROVIDER = (
    Grant(("iam:ListOpenIDConnectProviderTags",), _OIDC_PROVIDERS, reason=_OIDC_PROVIDERS_REASON),
    Grant(("iam:DeleteOpenIDConnectProvider",), _OIDC_PROVIDERS, MANAGED_RESOURCE, _OIDC_PROVIDERS_REASON),
)

# The Mountpoint for S3 CSI driver's role (stage 3), widened to the data bucket by stage 5, deleted with the cluster.
S3_CSI_ROLES = role_arns(s3_csi_role_name)
S3_CSI_ROLES_REASON = (
    "The Mountpoint for S3 CSI driver role is created per cluster tag at run time; the pattern admits only "
    "the control plane's <deployment>-<tag>-s3-csi roles"
)
READ_S3_CSI_ROLE = Grant(
    ("iam:GetRole", "iam:ListAttachedRolePolicies", "iam:ListRoleTags", "iam:GetRolePolicy", "iam:ListRolePolicies"),
    S3_CSI_ROLES,
    reason=S3_CSI_ROLES_REASON,
)
# Inline policies only on roles capped by the workload boundary: they can never exceed it.
PUT_S3_CSI_POLICY = Grant(("iam:PutRolePolicy",), S3_CSI_ROLES, BOUNDED_RESOURCE, S3_CSI_ROLES_REASON)
