"""Which workflow steps share one Lambda function (and so one IAM role): the grouping table.

`STEP_GROUPS` maps each group to the steps it serves; every step of `controlplane.workflows` is in exactly one
group (tests assert it). A group's role gets the union of its steps' `infra.permissions.STEP_ACCESS`, and nothing
else. Steps join a group only when that union stays least privilege: the same resource family acted on in the same
direction (create or remove), plus the read-only checks whose reads are already among the group's grants. Every
advanced feature is its own group (its ensure and remove steps). The steps that reach the Kubernetes API are grouped
apart, so that the Kubernetes access role trusts only functions that need it. The README explains the choice.
"""

from __future__ import annotations

from infra.permissions import ASSUME, PRINCIPAL, STEP_ACCESS, FunctionAccess, Grant

STEP_GROUPS: dict[str, tuple[str, ...]] = {
    # EC2: the VPC and its children, created under the ownership tag (stage 1, and stage 4's compute subnet).
    "network": (
        "ensure_vpc",
        "ensure_subnets",
        "ensure_internet_gateway",
        "ensure_nat_gateway",
        "ensure_route_tables",
        "ensure_s3_endpoint",
        "ensure_security_group",
        "ensure_compute_subnet",
    ),
    # EC2: the same resources deleted, only while they carry the ownership tag.
    "network_removal": ("release_nat_gateway", "release_compute_subnet", "delete_network"),
    # EKS: the cluster role, the cluster and the control plane's access entry; the check reads the cluster.
    "eks_cluster": ("ensure_cluster_role", "create_eks_cluster", "check_eks_cluster", "ensure_access_entry"),
    "eks_cluster_removal": ("delete_eks_cluster", "check_eks_cluster_deleted", "delete_cluster_role"),
    # The Kubernetes API through the access role, plus the AWS reads that locate the cluster and its stages.
    "kubernetes": (
        "verify_kubernetes_api",
        "discover_cluster_stages",
        "check_addons",
        "apply_hyperpod_dependencies",
        "check_node_agents",
        "apply_storage_claim",
        "apply_fsx_claim",
    ),
    # Downloads into the S3 claim: the downloader Job through the Kubernetes access role (apart from the stages'
    # Kubernetes steps: it writes nothing but the Job).
    "downloads": ("start_download_job", "check_download_job"),
    # Stage 3 in AWS: the OIDC provider, the S3 CSI driver's bounded role, the add-ons (and stage 4's check of them).
    "dependencies": ("ensure_oidc_provider", "ensure_s3_csi_driver_role", "ensure_addons", "check_addons_healthy"),
    # Stage 4: the HyperPod cluster and what it is created with (its roles, lifecycle bucket, operator identity).
    "hyperpod_cluster": (
        "ensure_execution_role",
        "ensure_lifecycle_scripts",
        "create_hyperpod_cluster",
        "check_hyperpod_cluster",
        "ensure_training_operator_identity",
    ),
    "hyperpod_cluster_removal": (
        "delete_hyperpod_cluster",
        "check_hyperpod_cluster_deleted",
        "delete_hyperpod_resources",
    ),
    # UpdateCluster / UpdateClusterSoftware on the control plane's own HyperPod clusters.
    "instance_groups": (
        "add_instance_group",
        "update_instance_group",
        "check_instance_group",
        "delete_instance_group",
        "check_instance_group_deleted",
        "start_software_update",
        "check_software_update",
    ),
    # Node actions on the control plane's own HyperPod clusters (one batch call each), and the node reads.
    "nodes": (
        "reboot_nodes",
        "replace_nodes",
        "delete_nodes",
        "check_nodes_rebooted",
        "check_nodes_replaced",
        "check_nodes_deleted",
    ),
    # Stage 5: the data bucket and the CSI role's access to it, the FSx file system.
    "storage": ("ensure_data_bucket", "grant_bucket_access", "create_fsx_file_system", "check_fsx_file_system"),
    "storage_removal": ("delete_fsx_file_systems", "check_fsx_file_systems_deleted"),
    # IAM: the workload identities stage 3 and the features created, deleted after the clusters are gone.
    "identities_removal": ("delete_dependency_identities", "delete_feature_identities"),
    # EventBridge: the rule forwarding another Region's HyperPod events to the home bus, created (passing the
    # forwarding role) and removed under the deployment's ownership tags.
    "event_forwarding": ("ensure_event_forwarding",),
    "event_forwarding_removal": ("remove_event_forwarding",),
    # Import: the adoption tag on the cluster and its VPC, and the reads that find its network.
    "import": ("tag_imported_cluster", "discover_cluster_network"),
    # Giving an imported cluster back: what the stages added inside it, and the adoption tags.
    "imported_cluster_release": ("release_imported_cluster",),
    # DynamoDB only (and the failed execution's history).
    "operations": ("record_operation_success", "record_stage_completed", "record_operation_failure"),
    # HyperPod waits parked on a task token until an event or the fallback timeout (DynamoDB only).
    "event_waits": ("await_hyperpod_event",),
    # Advanced features: one group each, its ensure and its remove step.
    "cert_manager": ("ensure_cert_manager", "remove_cert_manager"),
    "training_operator": ("ensure_training_operator", "remove_training_operator"),
    "tiered_storage": ("ensure_tiered_storage", "remove_tiered_storage"),
    "kuberay_operator": ("ensure_kuberay_operator", "remove_kuberay_operator"),
    "fsx_csi_driver": ("ensure_fsx_csi_driver", "remove_fsx_csi_driver"),
    "observability": ("ensure_observability", "remove_observability"),
    "inference_operator": ("ensure_inference_operator", "remove_inference_operator"),
    "karpenter": ("ensure_karpenter", "remove_karpenter"),
}


def group_of(step: str) -> str:
    """The group whose function serves `step`."""
    (group,) = [name for name, steps in STEP_GROUPS.items() if step in steps]
    return group


def group_access(group: str) -> FunctionAccess:
    """The union of the group's steps' access: each grant once, in table order."""
    accesses = [STEP_ACCESS[step] for step in STEP_GROUPS[group]]
    grants: list[Grant] = []
    tables: list[str] = []
    for access in accesses:
        grants.extend(grant for grant in access.grants if grant not in grants)
        tables.extend(table for table in access.tables if table not in tables)
    relations = {access.kubernetes_role for access in accesses}
    kubernetes_role = ASSUME if ASSUME in relations else PRINCIPAL if PRINCIPAL in relations else None
    return FunctionAccess(tuple(grants), tuple(tables), kubernetes_role)
