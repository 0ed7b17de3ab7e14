"""Deterministic names of the stack's own resources, and the construct IDs derived from table keys.

The state machines and the Kubernetes access and view roles have fixed names (one control plane per account and Region),
so that IAM policies and nested stacks can name them without referencing them.
"""

from __future__ import annotations

from aws_cdk import Aws

from controlplane.models.operations import OperationKind

PREFIX = "instantstart"


def pascal(snake: str) -> str:
    """`create_eks_cluster` → `CreateEksCluster` (construct IDs, ASL placeholders)."""
    return "".join(part.capitalize() for part in snake.split("_"))


def state_machine_name(kind: OperationKind) -> str:
    return f"{PREFIX}-{kind.value.replace('_', '-')}"


def kubernetes_role_name() -> str:
    """IAM is global: the Region keeps two deployments of one account apart."""
    return f"{PREFIX}-kubernetes-access-{Aws.REGION}"


def kubernetes_role_arn() -> str:
    """The Kubernetes access role's ARN, built from its name: steps in nested stacks name it without a
    reference, so the role can trust their roles without a dependency cycle."""
    return f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/{kubernetes_role_name()}"


def kubernetes_view_role_name() -> str:
    """The API's read-only Kubernetes identity (AmazonEKSViewPolicy on every cluster)."""
    return f"{PREFIX}-kubernetes-view-{Aws.REGION}"


def kubernetes_view_role_arn() -> str:
    """Named like the access role: the steps that create its access entries name it without a reference."""
    return f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/{kubernetes_view_role_name()}"


def kubernetes_jobs_role_name() -> str:
    """The API's Kubernetes identity for job writes (the job writers' group, whose RBAC allows job objects only)."""
    return f"{PREFIX}-kubernetes-jobs-{Aws.REGION}"


def kubernetes_jobs_role_arn() -> str:
    """Named like the access role: the steps that create its access entries name it without a reference."""
    return f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/{kubernetes_jobs_role_name()}"
