"""The scheduled drift reconcile's role (`infra.drift`): the reads a drift check makes of every registered cluster,
and the registry, the operations and the drift reports. It changes nothing in any cluster."""

from __future__ import annotations

from controlplane.access.eks import DESCRIBE_ADDON_VERSIONS, DESCRIBE_ADDONS, DESCRIBE_EKS_CLUSTER
from controlplane.access.features import (
    FEATURE_ROLES_REASON,
    FSX_CSI_ROLES,
    INFERENCE_ROLES,
    INFERENCE_ROLES_REASON,
    KARPENTER_ROLES,
    KARPENTER_ROLES_REASON,
    OBSERVABILITY_ROLES,
    READ_TIERED_POLICY,
    TIERED_REASON,
    TIERED_ROLES,
)
from controlplane.access.grant import FunctionAccess
from controlplane.access.hyperpod import DESCRIBE_HYPERPOD
from controlplane.access.iam import read_roles
from infra.access.kubernetes import ASSUME_VIEW_ROLE

DRIFT_ACCESS = FunctionAccess(
    (
        DESCRIBE_EKS_CLUSTER,
        DESCRIBE_HYPERPOD,
        DESCRIBE_ADDONS,
        # An add-on at another version than its pin: is it the one the stages install on the cluster's Kubernetes?
        DESCRIBE_ADDON_VERSIONS,
        read_roles(TIERED_ROLES, TIERED_REASON),
        READ_TIERED_POLICY,
        read_roles(FSX_CSI_ROLES + OBSERVABILITY_ROLES, FEATURE_ROLES_REASON),
        read_roles(INFERENCE_ROLES, INFERENCE_ROLES_REASON),
        read_roles(KARPENTER_ROLES, KARPENTER_ROLES_REASON),
        # Service accounts and claims, read through the view role (AmazonEKSViewPolicy on every cluster).
        ASSUME_VIEW_ROLE,
    ),
    tables=("operations_table", "clusters_table", "drift_table"),
)
