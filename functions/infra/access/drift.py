"""The scheduled drift reconcile's role (`infra.drift`): the reads a drift check makes of every registered cluster,
and the registry, the operations and the drift reports. It changes nothing in any cluster."""

from __future__ import annotations

from controlplane.access.eks import DESCRIBE_ADDON_VERSIONS, DESCRIBE_ADDONS, DESCRIBE_EKS_CLUSTER
from controlplane.access.grant import FunctionAccess
from controlplane.access.hyperpod import DESCRIBE_HYPERPOD
from infra.access.kubernetes import ASSUME_VIEW_ROLE
from steps.features import FEATURE_CHECKS

DRIFT_ACCESS = FunctionAccess(
    (
        DESCRIBE_EKS_CLUSTER,
        DESCRIBE_HYPERPOD,
        DESCRIBE_ADDONS,
        # An add-on at another version than its pin: is it the one the stages install on the cluster's Kubernetes?
        DESCRIBE_ADDON_VERSIONS,
        # What the features create outside the clusters (their roles, the tiered-checkpointing policy).
        *FEATURE_CHECKS,
        # Service accounts and claims, read through the view role (AmazonEKSViewPolicy on every cluster).
        ASSUME_VIEW_ROLE,
    ),
    tables=("operations_table", "clusters_table", "drift_table"),
)
