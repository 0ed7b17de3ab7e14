"""Stage 3's steps, what HyperPod needs in and around the EKS cluster: the OIDC provider, the Mountpoint for S3 CSI
driver's bounded role, the add-ons (and stage 4's proof that they are ACTIVE on the new nodes), the HyperPod
dependencies applied through the Kubernetes API; and the deletion of the identities stage 3 created."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.conditions import BOUNDED_REQUEST, MANAGED_REQUEST, MANAGED_RESOURCE
from controlplane.access.eks import (
    ANY_ADDON,
    DESCRIBE_ADDON_VERSIONS,
    DESCRIBE_ADDONS,
    DESCRIBE_EKS_CLUSTER,
    EKS_CLUSTERS,
    EKS_CLUSTERS_REASON,
    OWNED_SUB_RESOURCE_REASON,
    also_adopted,
)
from controlplane.access.grant import ASSUME_KUBERNETES_ROLE, Grant
from controlplane.access.iam import (
    CREATE_OIDC_PROVIDER,
    DELETE_OIDC_PROVIDER,
    LIST_OIDC_PROVIDERS,
    PUT_S3_CSI_POLICY,
    READ_S3_CSI_ROLE,
    S3_CSI_ROLES,
    S3_CSI_ROLES_REASON,
    pass_role,
)
from controlplane.core.identity import EKS_SERVICE_PRINCIPAL
from controlplane.models.workflow import DeleteEksClusterInput, WorkflowState
from steps.groups import DEPENDENCIES, IDENTITIES_REMOVAL, KUBERNETES
from steps.step import work

STEPS = (
    work(
        "Ensure OIDC Provider",
        DEPENDENCIES,
        WorkflowState,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).ensure_oidc_provider(ctx),
        (DESCRIBE_EKS_CLUSTER, LIST_OIDC_PROVIDERS, CREATE_OIDC_PROVIDER),
    ),
    work(
        "Ensure S3 CSI Driver Role",
        DEPENDENCIES,
        WorkflowState,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).ensure_s3_csi_driver_role(ctx),
        (
            DESCRIBE_EKS_CLUSTER,
            LIST_OIDC_PROVIDERS,
            READ_S3_CSI_ROLE,
            Grant(("iam:CreateRole",), S3_CSI_ROLES, BOUNDED_REQUEST, S3_CSI_ROLES_REASON),
            Grant(("iam:TagRole",), S3_CSI_ROLES, MANAGED_REQUEST, S3_CSI_ROLES_REASON),
            PUT_S3_CSI_POLICY,
        ),
    ),
    work(
        "Ensure Addons",
        DEPENDENCIES,
        WorkflowState,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).ensure_addons(ctx),
        (
            DESCRIBE_EKS_CLUSTER,
            READ_S3_CSI_ROLE,
            DESCRIBE_ADDONS,
            DESCRIBE_ADDON_VERSIONS,
            Grant(("eks:CreateAddon",), EKS_CLUSTERS, MANAGED_REQUEST, EKS_CLUSTERS_REASON),
            also_adopted(("eks:CreateAddon",), MANAGED_REQUEST),
            Grant(("eks:TagResource",), ANY_ADDON, MANAGED_REQUEST, OWNED_SUB_RESOURCE_REASON),
            pass_role(S3_CSI_ROLES, EKS_SERVICE_PRINCIPAL, S3_CSI_ROLES_REASON),
        ),
    ),
    # Reads the nodes (through the Kubernetes access role) when an add-on waits for replicas.
    work(
        "Check Addons",
        KUBERNETES,
        WorkflowState,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).check_addons(ctx),
        (DESCRIBE_EKS_CLUSTER, DESCRIBE_ADDONS, ASSUME_KUBERNETES_ROLE),
        settled="Add-ons {status}",
    ),
    work(
        "Apply HyperPod Dependencies",
        KUBERNETES,
        WorkflowState,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).apply_hyperpod_dependencies(ctx),
        (DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE),
    ),
    work(
        "Check Addons Healthy",
        DEPENDENCIES,
        WorkflowState,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).check_addons_healthy(ctx),
        (DESCRIBE_EKS_CLUSTER, DESCRIBE_ADDONS),
        settled="Add-ons {status}",
    ),
    work(
        "Delete Dependency Identities",
        IDENTITIES_REMOVAL,
        DeleteEksClusterInput,
        lambda ctx: wiring.cluster_dependencies_service(ctx.region).delete_dependency_identities(ctx),
        (
            READ_S3_CSI_ROLE,
            Grant(
                ("iam:DetachRolePolicy", "iam:DeleteRolePolicy", "iam:DeleteRole"),
                S3_CSI_ROLES,
                MANAGED_RESOURCE,
                S3_CSI_ROLES_REASON,
            ),
            LIST_OIDC_PROVIDERS,
            *DELETE_OIDC_PROVIDER,
        ),
    ),
)
