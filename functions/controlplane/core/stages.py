"""Each workflow's stages, in order, and the Task states (steps) that make up each stage.

This is what an operation reports; a contract test keeps it equal to the Task states of the ASL files.
"""

from __future__ import annotations

from controlplane.models.operations import OperationKind

WORKFLOW_STAGES: dict[OperationKind, dict[str, tuple[str, ...]]] = {
    OperationKind.CREATE_EKS_CLUSTER: {
        "network": (
            "Ensure VPC",
            "Ensure Subnets",
            "Ensure Internet Gateway",
            "Ensure NAT Gateway",
            "Ensure Route Tables",
            "Ensure S3 Endpoint",
            "Ensure Security Group",
        ),
        "iam": ("Ensure Cluster Role",),
        "eks-control-plane": ("Create EKS Cluster", "Check EKS Cluster"),
        "cluster-access": ("Ensure Access Entry",),
        "kubernetes-api": ("Verify Kubernetes API",),
    },
    OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES: {
        "oidc": ("Ensure OIDC Provider",),
        "addons": ("Ensure S3 CSI Driver Role", "Ensure Addons", "Check Addons"),
        "hyperpod-dependencies": ("Apply HyperPod Dependencies",),
    },
    OperationKind.CREATE_HYPERPOD_CLUSTER: {
        "identity": ("Ensure Execution Role",),
        "lifecycle-scripts": ("Ensure Lifecycle Scripts",),
        "network": ("Ensure Compute Subnet",),
        "hyperpod-cluster": ("Create HyperPod Cluster", "Check HyperPod Cluster"),
        "training-operator-identity": ("Ensure Training Operator Identity",),
    },
    OperationKind.CONFIGURE_STORAGE: {
        "bucket": ("Ensure Data Bucket",),
        "access": ("Grant Bucket Access",),
        "claim": ("Apply Storage Claim",),
        # Only when fsx is requested (an ASL Choice); the CSI driver is the fsxCsiDriver feature's own step.
        "fsx": ("Ensure Fsx Csi Driver", "Create FSx File System", "Check FSx File System", "Apply FSx Claim"),
    },
    OperationKind.DELETE_EKS_CLUSTER: {
        "hyperpod": ("Delete HyperPod Cluster", "Check HyperPod Cluster Deleted", "Delete HyperPod Resources"),
        "storage": ("Delete FSx File Systems", "Check FSx File Systems Deleted"),
        "eks-control-plane": ("Release Imported Cluster", "Delete EKS Cluster", "Check EKS Cluster Deleted"),
        "iam": ("Delete Cluster Role", "Delete Dependency Identities", "Delete Feature Identities"),
        "network": ("Release NAT Gateway", "Delete Network"),
    },
    OperationKind.ADD_INSTANCE_GROUP: {
        "network": ("Ensure Compute Subnet",),
        "instance-group": ("Add Instance Group", "Check Instance Group"),
    },
    OperationKind.UPDATE_INSTANCE_GROUP: {
        "instance-group": ("Update Instance Group", "Check Instance Group"),
    },
    OperationKind.DELETE_INSTANCE_GROUP: {
        "instance-group": ("Delete Instance Group", "Check Instance Group Deleted"),
        "network": ("Release Compute Subnet",),
    },
    OperationKind.UPDATE_CLUSTER_SOFTWARE: {
        "rollout": ("Start Software Update", "Check Software Update"),
    },
    # One stage per feature; an operation lists only the features its request changes.
    OperationKind.UPDATE_CLUSTER_FEATURES: {
        "certManager": ("Remove Cert Manager", "Ensure Cert Manager"),
        "fsxCsiDriver": ("Remove Fsx Csi Driver", "Ensure Fsx Csi Driver"),
        "kuberayOperator": ("Remove Kuberay Operator", "Ensure Kuberay Operator"),
        "tieredStorage": ("Remove Tiered Storage", "Ensure Tiered Storage"),
        "trainingOperator": ("Remove Training Operator", "Ensure Training Operator"),
        "observability": ("Remove Observability", "Ensure Observability"),
        "inferenceOperator": ("Remove Inference Operator", "Ensure Inference Operator"),
        "karpenter": ("Remove Karpenter", "Ensure Karpenter"),
    },
    OperationKind.IMPORT_CLUSTER: {
        "adoption": ("Tag Imported Cluster",),
        "cluster-access": ("Ensure Access Entry",),
        "kubernetes-api": ("Verify Kubernetes API",),
        "discovery": ("Discover Cluster Network", "Discover Cluster Stages"),
    },
}


def stage_names(kind: OperationKind) -> list[str]:
    return list(WORKFLOW_STAGES[kind])


def stage_of(kind: OperationKind, step: str) -> str | None:
    for stage, steps in WORKFLOW_STAGES[kind].items():
        if step in steps:
            return stage
    return None


def _steps(kind: OperationKind) -> tuple[str, ...]:
    return tuple(step for steps in WORKFLOW_STAGES[kind].values() for step in steps)


# The one-request pipeline runs every stage's steps; its stages are the pipeline's own.
WORKFLOW_STAGES[OperationKind.CREATE_CLUSTER] = {
    "eks": _steps(OperationKind.CREATE_EKS_CLUSTER),
    "dependencies": _steps(OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES),
    "hyperpod": _steps(OperationKind.CREATE_HYPERPOD_CLUSTER),
    "storage": _steps(OperationKind.CONFIGURE_STORAGE),
}
