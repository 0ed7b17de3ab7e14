"""The advanced features' steps and grants: each feature declares its access once (`ACCESS`): its ensure and remove
steps, a group of their own, run the feature's level-triggered handler (`core.features`) with the grants that
feature's chain needs (its add-on, its roles, what it creates beside them); on cluster deletion, one step deletes the
identities every feature created outside the cluster; the API's live reads and the drift reconcile's checks are
collected here too. Every feature step first reads the cluster's EKS control plane and HyperPod cluster."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

from controlplane import wiring
from controlplane.access.conditions import (
    AUTOSCALING_BOUNDED,
    BOUNDED_REQUEST,
    BOUNDED_RESOURCE,
    MANAGED_REQUEST,
    MANAGED_RESOURCE,
)
from controlplane.access.eks import (
    ANY_ADDON,
    CREATE_POD_IDENTITY,
    DELETE_ADDON,
    DELETE_POD_IDENTITY,
    DESCRIBE_ADDON_VERSIONS,
    DESCRIBE_ADDONS,
    DESCRIBE_EKS_CLUSTER,
    EKS_CLUSTERS,
    EKS_CLUSTERS_REASON,
    OWNED_SUB_RESOURCE_REASON,
    READ_POD_IDENTITIES,
    also_adopted,
)
from controlplane.access.features import (
    FEATURE_ROLES_REASON,
    FSX_CSI_ROLES,
    INFERENCE_ROLES,
    INFERENCE_ROLES_REASON,
    JOB_ROLES,
    JOB_ROLES_REASON,
    KARPENTER_ROLES,
    KARPENTER_ROLES_REASON,
    OBSERVABILITY_ROLES,
    READ_TIERED,
    READ_TIERED_POLICY,
    READ_TLS_BUCKETS,
    READ_WORKSPACES,
    TIERED_POLICIES,
    TIERED_REASON,
    TIERED_ROLES,
    TLS_BUCKETS,
    TLS_BUCKETS_REASON,
    WORKSPACES,
    WORKSPACES_REASON,
)
from controlplane.access.grant import ASSUME_KUBERNETES_ROLE, NO_RESOURCE_LEVEL_REASON, Grant
from controlplane.access.hyperpod import DESCRIBE_HYPERPOD, UPDATE_HYPERPOD
from controlplane.access.iam import (
    CREATE_OIDC_PROVIDER,
    DELETE_OIDC_PROVIDER,
    LIST_OIDC_PROVIDERS,
    create_role_with_policy,
    delete_roles,
    pass_role,
    read_roles,
)
from controlplane.access.s3 import buckets
from controlplane.core.features import DISABLE_ORDER
from controlplane.core.identity import (
    EKS_SERVICE_PRINCIPAL,
    FSX_CSI_POLICY,
    INFERENCE_OPERATOR_POLICY,
    OBSERVABILITY_POLICIES,
    POD_IDENTITY_PRINCIPAL,
    SAGEMAKER_PRINCIPAL,
)
from controlplane.models.features import Feature
from controlplane.models.workflow import DeleteEksClusterInput, FeatureChangesInput, UpdateClusterFeaturesInput
from controlplane.workflows.definitions import ensure_step, remove_step
from steps.groups import IDENTITIES_REMOVAL, feature_group
from steps.step import Result, Step, work

# Creating an add-on, then judging it: one that waits for replicas is read against the cluster's nodes, through the
# Kubernetes access role (so every step that creates an add-on assumes it).
_CREATE_ADDON = (
    DESCRIBE_ADDONS,
    DESCRIBE_ADDON_VERSIONS,
    ASSUME_KUBERNETES_ROLE,
    Grant(("eks:CreateAddon",), EKS_CLUSTERS, MANAGED_REQUEST, EKS_CLUSTERS_REASON),
    also_adopted(("eks:CreateAddon",), MANAGED_REQUEST),
    Grant(("eks:TagResource",), ANY_ADDON, MANAGED_REQUEST, OWNED_SUB_RESOURCE_REASON),
)


# The trainingOperator feature's jobs identity: a role within the workload boundary whose one inline policy lets
# jobs log to MLflow, its ServiceAccount (through the Kubernetes role) and their pod identity association.
_ENSURE_JOB_IDENTITY = (
    read_roles(JOB_ROLES, JOB_ROLES_REASON),
    Grant(("iam:GetRolePolicy",), JOB_ROLES, reason=JOB_ROLES_REASON),
    Grant(("iam:CreateRole",), JOB_ROLES, BOUNDED_REQUEST, JOB_ROLES_REASON),
    Grant(("iam:TagRole",), JOB_ROLES, MANAGED_REQUEST, JOB_ROLES_REASON),
    Grant(("iam:PutRolePolicy",), JOB_ROLES, BOUNDED_RESOURCE, JOB_ROLES_REASON),
    pass_role(JOB_ROLES, POD_IDENTITY_PRINCIPAL, JOB_ROLES_REASON),
    *READ_POD_IDENTITIES,
    *CREATE_POD_IDENTITY,
    ASSUME_KUBERNETES_ROLE,
)
_REMOVE_JOB_IDENTITY = (
    *delete_roles(JOB_ROLES, JOB_ROLES_REASON),
    *READ_POD_IDENTITIES,
    DELETE_POD_IDENTITY,
    ASSUME_KUBERNETES_ROLE,
)
_DELETE_TIERED = (
    *delete_roles(TIERED_ROLES, TIERED_REASON),
    Grant(
        ("iam:ListPolicyVersions", "iam:DeletePolicyVersion", "iam:DeletePolicy"),
        TIERED_POLICIES,
        MANAGED_RESOURCE,
        TIERED_REASON,
    ),
)
_CREATE_WORKSPACE = (
    # CreateWorkspace has no resource type: the ownership tags in the request are its only scope.
    Grant(("aps:CreateWorkspace",), ("*",), MANAGED_REQUEST, NO_RESOURCE_LEVEL_REASON),
    Grant(("aps:TagResource",), WORKSPACES, MANAGED_REQUEST, WORKSPACES_REASON),
)
_DELETE_WORKSPACE = Grant(("aps:DeleteWorkspace",), WORKSPACES, MANAGED_RESOURCE, WORKSPACES_REASON)
# A TLS bucket is emptied, then deleted: it holds only the certificates the operator wrote.
_EMPTY_TLS_BUCKETS = (
    *READ_TLS_BUCKETS,
    *buckets(
        ("s3:ListBucketVersions", "s3:DeleteObject", "s3:DeleteObjectVersion", "s3:DeleteBucket"),
        TLS_BUCKETS + tuple(f"{bucket}/*" for bucket in TLS_BUCKETS),
        TLS_BUCKETS_REASON,
    ),
)


@dataclass(frozen=True)
class FeatureAccess:
    """One feature's grants, beside the cluster reads every feature step makes. `ensure` and `remove`: its two
    steps'. `identities`: deleting what it creates outside the cluster once the cluster is gone (the cluster deletion's
    step). `checks`: reading what it creates outside the cluster (the drift reconcile's reads, and the API's).
    `reads`: what else reading its live state needs (the API's features view)."""

    ensure: tuple[Grant, ...]
    remove: tuple[Grant, ...]
    identities: tuple[Grant, ...] = ()
    checks: tuple[Grant, ...] = ()
    reads: tuple[Grant, ...] = ()


# Every feature's access, in the features' order; a feature missing here fails on import.
ACCESS: dict[Feature, FeatureAccess] = {
    Feature.CERT_MANAGER: FeatureAccess(ensure=_CREATE_ADDON, remove=DELETE_ADDON),
    Feature.FSX_CSI_DRIVER: FeatureAccess(
        ensure=(
            *_CREATE_ADDON,
            LIST_OIDC_PROVIDERS,
            *create_role_with_policy(FSX_CSI_ROLES, (FSX_CSI_POLICY,), FEATURE_ROLES_REASON),
            pass_role(FSX_CSI_ROLES, EKS_SERVICE_PRINCIPAL, FEATURE_ROLES_REASON),
        ),
        remove=(*DELETE_ADDON, *delete_roles(FSX_CSI_ROLES, FEATURE_ROLES_REASON)),
        identities=delete_roles(FSX_CSI_ROLES, FEATURE_ROLES_REASON),
        checks=(read_roles(FSX_CSI_ROLES, FEATURE_ROLES_REASON),),
    ),
    Feature.KUBERAY_OPERATOR: FeatureAccess(ensure=(ASSUME_KUBERNETES_ROLE,), remove=(ASSUME_KUBERNETES_ROLE,)),
    Feature.TIERED_STORAGE: FeatureAccess(
        ensure=(
            *READ_TIERED,
            CREATE_OIDC_PROVIDER,
            Grant(("iam:CreatePolicy", "iam:TagPolicy"), TIERED_POLICIES, MANAGED_REQUEST, TIERED_REASON),
            # Like the S3 CSI role: created only with the workload boundary, so its policy can never exceed it.
            Grant(("iam:CreateRole",), TIERED_ROLES, BOUNDED_REQUEST, TIERED_REASON),
            Grant(("iam:TagRole",), TIERED_ROLES, MANAGED_REQUEST, TIERED_REASON),
            Grant(
                ("iam:AttachRolePolicy",),
                TIERED_ROLES,
                {"ArnLike": {"iam:PolicyARN": TIERED_POLICIES[0]}, **BOUNDED_RESOURCE},
                TIERED_REASON,
            ),
            UPDATE_HYPERPOD,
            ASSUME_KUBERNETES_ROLE,
        ),
        remove=(*READ_TIERED, *_DELETE_TIERED, *DELETE_OIDC_PROVIDER, UPDATE_HYPERPOD, ASSUME_KUBERNETES_ROLE),
        identities=(*READ_TIERED, *_DELETE_TIERED),
        checks=(read_roles(TIERED_ROLES, TIERED_REASON), READ_TIERED_POLICY),
        reads=READ_TIERED,
    ),
    Feature.TRAINING_OPERATOR: FeatureAccess(
        ensure=(*_CREATE_ADDON, *_ENSURE_JOB_IDENTITY),
        remove=(*DELETE_ADDON, *_REMOVE_JOB_IDENTITY),
        identities=delete_roles(JOB_ROLES, JOB_ROLES_REASON),
        reads=(read_roles(JOB_ROLES, JOB_ROLES_REASON), *READ_POD_IDENTITIES),
    ),
    Feature.OBSERVABILITY: FeatureAccess(
        ensure=(
            *READ_WORKSPACES,
            *_CREATE_WORKSPACE,
            # A workspace that failed to create is deleted and made again.
            _DELETE_WORKSPACE,
            *_CREATE_ADDON,
            *create_role_with_policy(OBSERVABILITY_ROLES, OBSERVABILITY_POLICIES, FEATURE_ROLES_REASON),
            pass_role(OBSERVABILITY_ROLES, POD_IDENTITY_PRINCIPAL, FEATURE_ROLES_REASON),
            # CreateAddon creates the add-on's own pod identity association.
            *CREATE_POD_IDENTITY,
        ),
        remove=(
            *DELETE_ADDON,
            *delete_roles(OBSERVABILITY_ROLES, FEATURE_ROLES_REASON),
            *READ_WORKSPACES,
            _DELETE_WORKSPACE,
        ),
        identities=(*delete_roles(OBSERVABILITY_ROLES, FEATURE_ROLES_REASON), *READ_WORKSPACES, _DELETE_WORKSPACE),
        checks=(read_roles(OBSERVABILITY_ROLES, FEATURE_ROLES_REASON),),
        reads=READ_WORKSPACES,
    ),
    Feature.INFERENCE_OPERATOR: FeatureAccess(
        ensure=(
            # Also reads the stage 3 add-ons it needs ACTIVE.
            *_CREATE_ADDON,
            LIST_OIDC_PROVIDERS,
            *create_role_with_policy(INFERENCE_ROLES, (INFERENCE_OPERATOR_POLICY,), INFERENCE_ROLES_REASON),
            # The role reaches the add-on in its configuration values, so EKS is never passed it (no PassRole).
            *READ_TLS_BUCKETS,
            *buckets(
                (
                    "s3:CreateBucket",
                    "s3:PutBucketTagging",
                    "s3:PutBucketPublicAccessBlock",
                    "s3:PutEncryptionConfiguration",
                    "s3:PutBucketPolicy",
                ),
                TLS_BUCKETS,
                TLS_BUCKETS_REASON,
            ),
        ),
        remove=(*DELETE_ADDON, *delete_roles(INFERENCE_ROLES, INFERENCE_ROLES_REASON), *_EMPTY_TLS_BUCKETS),
        identities=(*delete_roles(INFERENCE_ROLES, INFERENCE_ROLES_REASON), *_EMPTY_TLS_BUCKETS),
        checks=(read_roles(INFERENCE_ROLES, INFERENCE_ROLES_REASON),),
        reads=READ_TLS_BUCKETS,
    ),
    Feature.TASK_GOVERNANCE: FeatureAccess(ensure=_CREATE_ADDON, remove=DELETE_ADDON),
    Feature.KARPENTER: FeatureAccess(
        ensure=(
            Grant(
                (
                    "iam:GetRole",
                    "iam:ListAttachedRolePolicies",
                    "iam:ListRoleTags",
                    "iam:ListRolePolicies",
                    "iam:GetRolePolicy",
                ),
                KARPENTER_ROLES,
                reason=KARPENTER_ROLES_REASON,
            ),
            # Created only with the autoscaling boundary, so its inline policy can never exceed node batch actions.
            Grant(
                ("iam:CreateRole",),
                KARPENTER_ROLES,
                {"StringEquals": {**MANAGED_REQUEST["StringEquals"], **AUTOSCALING_BOUNDED}},
                KARPENTER_ROLES_REASON,
            ),
            Grant(("iam:TagRole",), KARPENTER_ROLES, MANAGED_REQUEST, KARPENTER_ROLES_REASON),
            Grant(
                ("iam:PutRolePolicy",),
                KARPENTER_ROLES,
                {"StringEquals": {**MANAGED_RESOURCE["StringEquals"], **AUTOSCALING_BOUNDED}},
                KARPENTER_ROLES_REASON,
            ),
            pass_role(KARPENTER_ROLES, SAGEMAKER_PRINCIPAL, KARPENTER_ROLES_REASON),
            UPDATE_HYPERPOD,
            ASSUME_KUBERNETES_ROLE,
        ),
        remove=(*delete_roles(KARPENTER_ROLES, KARPENTER_ROLES_REASON), UPDATE_HYPERPOD, ASSUME_KUBERNETES_ROLE),
        identities=delete_roles(KARPENTER_ROLES, KARPENTER_ROLES_REASON),
        checks=(read_roles(KARPENTER_ROLES, KARPENTER_ROLES_REASON),),
    ),
    Feature.DEV_SPACES: FeatureAccess(ensure=_CREATE_ADDON, remove=DELETE_ADDON),
}


def _once(grants: Iterable[Grant]) -> tuple[Grant, ...]:
    """Each grant once, in the order first named."""
    kept: list[Grant] = []
    kept.extend(grant for grant in grants if grant not in kept)
    return tuple(kept)


# What reading every feature's live state needs (the API's features view), and checking what the features create
# outside the clusters (the drift reconcile).
FEATURE_CHECKS = _once(grant for access in ACCESS.values() for grant in access.checks)
FEATURE_READS = _once(grant for access in ACCESS.values() for grant in (*access.checks, *access.reads))


def _ensure(feature: Feature, ctx: FeatureChangesInput) -> Result:
    return wiring.feature_steps(ctx.region).ensure(feature, ctx)


def _remove(feature: Feature, ctx: UpdateClusterFeaturesInput) -> Result:
    return wiring.feature_steps(ctx.region).remove(feature, ctx)


def _feature(feature: Feature) -> tuple[Step, Step]:
    """A feature's ensure and remove steps, named as the workflow declarations name them, in the feature's group."""
    group = feature_group(feature)
    access = ACCESS[feature]
    facts = (DESCRIBE_EKS_CLUSTER, DESCRIBE_HYPERPOD)
    return (
        work(ensure_step(feature), group, FeatureChangesInput, partial(_ensure, feature), (*facts, *access.ensure)),
        work(
            remove_step(feature), group, UpdateClusterFeaturesInput, partial(_remove, feature), (*facts, *access.remove)
        ),
    )


STEPS = (
    *(step for feature in Feature for step in _feature(feature)),
    # What features created outside the clusters (roles, policies, buckets, workspaces), removed after the clusters
    # are gone.
    work(
        "Delete Feature Identities",
        IDENTITIES_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.feature_steps(ctx.region).delete_identities(ctx, DISABLE_ORDER),
        _once(grant for access in ACCESS.values() for grant in access.identities),
    ),
)
