"""EKS grants: the control plane's clusters by their deterministic names, an imported cluster by its adoption tag,
the sub-resources EKS assigns IDs to (access entries, add-ons, pod identity associations), the reads every cluster
allows, and the control plane's three Kubernetes principals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controlplane.access.conditions import ADOPTED, MANAGED_REQUEST, MANAGED_RESOURCE, OWNERSHIP
from controlplane.access.grant import NO_RESOURCE_LEVEL_REASON, Grant
from controlplane.core.naming import eks_cluster_name

EKS_CLUSTERS = (f"arn:{{partition}}:eks:*:{{account}}:cluster/{eks_cluster_name('*')}",)
EKS_CLUSTERS_REASON = (
    "Clusters are created per cluster tag at run time; the ARN pattern admits only the control "
    f"plane's deterministic names ({eks_cluster_name('<tag>')})"
)
ANY_EKS_CLUSTER = ("arn:{partition}:eks:*:{account}:cluster/*",)
ANY_ACCESS_ENTRY = ("arn:{partition}:eks:*:{account}:access-entry/*/*",)
ANY_ADDON = ("arn:{partition}:eks:*:{account}:addon/*/*/*",)
ANY_POD_IDENTITY = ("arn:{partition}:eks:*:{account}:podidentityassociation/*/*",)
READ_ANY_CLUSTER_REASON = (
    "Imported clusters keep their own names, so these read-only EKS actions name any cluster (or its add-ons, "
    "access entries, pod identity associations) of the account; they change nothing"
)
_ADOPTED_CLUSTERS_REASON = (
    "Imported clusters keep their own names; the statement requires the instantstart:cluster tag on the "
    "cluster, which only the import workflow adds"
)
OWNED_SUB_RESOURCE_REASON = (
    "EKS assigns the IDs of add-ons, access entries and pod identity associations; the statement requires "
    f"each ownership tag ({OWNERSHIP}), set when the control plane created them"
)

DESCRIBE_EKS_CLUSTER = Grant(("eks:DescribeCluster",), ANY_EKS_CLUSTER, reason=READ_ANY_CLUSTER_REASON)
DESCRIBE_ADDONS = Grant(("eks:DescribeAddon",), ANY_ADDON, reason=READ_ANY_CLUSTER_REASON)
# Which add-on versions a Kubernetes version allows: the version an add-on is created at.
DESCRIBE_ADDON_VERSIONS = Grant(("eks:DescribeAddonVersions",), ("*",), reason=NO_RESOURCE_LEVEL_REASON)
READ_POD_IDENTITIES = (
    Grant(("eks:ListPodIdentityAssociations",), ANY_EKS_CLUSTER, reason=READ_ANY_CLUSTER_REASON),
    Grant(("eks:DescribePodIdentityAssociation",), ANY_POD_IDENTITY, reason=READ_ANY_CLUSTER_REASON),
)

# The control plane's three principals on a cluster: the steps' (cluster admin), the API's (view only) and the API's
# jobs role (the job writers' group).
KUBERNETES_PRINCIPALS = {
    "StringEquals": {
        "eks:principalArn": ["{kubernetes_role_arn}", "{kubernetes_view_role_arn}", "{kubernetes_jobs_role_arn}"]
    }
}


def also_adopted(actions: tuple[str, ...], conditions: Mapping[str, Mapping[str, Any]] | None = None) -> Grant:
    """The same EKS cluster actions on an imported cluster: any name, while it carries the adoption tag."""
    return Grant(actions, ANY_EKS_CLUSTER, {**(conditions or {}), **ADOPTED}, _ADOPTED_CLUSTERS_REASON)


# A pod identity association on a cluster of the control plane's, tagged as its own.
CREATE_POD_IDENTITY = (
    Grant(("eks:CreatePodIdentityAssociation",), EKS_CLUSTERS, reason=EKS_CLUSTERS_REASON),
    also_adopted(("eks:CreatePodIdentityAssociation",)),
    Grant(("eks:TagResource",), ANY_POD_IDENTITY, MANAGED_REQUEST, OWNED_SUB_RESOURCE_REASON),
)
DELETE_POD_IDENTITY = Grant(
    ("eks:DeletePodIdentityAssociation",), ANY_POD_IDENTITY, MANAGED_RESOURCE, OWNED_SUB_RESOURCE_REASON
)

# Deleting an add-on the control plane created (its ownership tags on the add-on).
DELETE_ADDON = (
    DESCRIBE_ADDONS,
    Grant(("eks:DeleteAddon",), ANY_ADDON, MANAGED_RESOURCE, OWNED_SUB_RESOURCE_REASON),
)
