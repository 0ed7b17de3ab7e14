"""Deterministic names of the stack's own resources, and the construct IDs derived from table keys.

The state machines, the Kubernetes access and view roles and the event forwarding role have fixed names, so that
IAM policies and nested stacks can name them without referencing them. Each starts with the deployment name (context
`deploymentName`, default `instantstart`): two deployments fit one account and Region.
"""

from __future__ import annotations

import re

from aws_cdk import Aws
from constructs import Construct

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, DEPLOYMENT_NAME_PATTERN
from controlplane.models.operations import OperationKind

DEPLOYMENT_CONTEXT_KEY = "deploymentName"


def deployment_name(scope: Construct) -> str:
    """Context `deploymentName`: 3-12 lowercase letters and digits, starting with a letter."""
    name = str(scope.node.try_get_context(DEPLOYMENT_CONTEXT_KEY) or DEFAULT_DEPLOYMENT_NAME)
    if not re.fullmatch(DEPLOYMENT_NAME_PATTERN, name):
        raise ValueError(
            f"{DEPLOYMENT_CONTEXT_KEY}: {name!r} must be 3-12 lowercase letters and digits, starting with a letter."
        )
    return name


def pascal(snake: str) -> str:
    """`create_eks_cluster` → `CreateEksCluster` (construct IDs, ASL placeholders)."""
    return "".join(part.capitalize() for part in snake.split("_"))


def state_machine_name(deployment: str, kind: OperationKind) -> str:
    """Also names the machine's log group (`/aws/vendedlogs/states/<name>`)."""
    return f"{deployment}-{kind.value.replace('_', '-')}"


def kubernetes_role_name(deployment: str) -> str:
    """IAM is global: the Region keeps two deployments of one name in one account apart."""
    return f"{deployment}-kubernetes-access-{Aws.REGION}"


def kubernetes_role_arn(deployment: str) -> str:
    """The Kubernetes access role's ARN, built from its name: steps in nested stacks name it without a
    reference, so the role can trust their roles without a dependency cycle."""
    return f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/{kubernetes_role_name(deployment)}"


def kubernetes_view_role_name(deployment: str) -> str:
    """The API's read-only Kubernetes identity (AmazonEKSViewPolicy on every cluster)."""
    return f"{deployment}-kubernetes-view-{Aws.REGION}"


def kubernetes_view_role_arn(deployment: str) -> str:
    """Named like the access role: the steps that create its access entries name it without a reference."""
    return f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/{kubernetes_view_role_name(deployment)}"


def kubernetes_jobs_role_name(deployment: str) -> str:
    """The API's Kubernetes identity for job writes (the job writers' group, whose RBAC allows job objects only)."""
    return f"{deployment}-kubernetes-jobs-{Aws.REGION}"


def kubernetes_jobs_role_arn(deployment: str) -> str:
    """Named like the access role: the steps that create its access entries name it without a reference."""
    return f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/{kubernetes_jobs_role_name(deployment)}"


def event_forwarding_role_name(deployment: str) -> str:
    """The role EventBridge assumes in other Regions to put their HyperPod events on this Region's default bus."""
    return f"{deployment}-event-forwarding-{Aws.REGION}"


def event_forwarding_role_arn(deployment: str) -> str:
    """Named like the access role: the steps that pass it to EventBridge name it without a reference."""
    return f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/{event_forwarding_role_name(deployment)}"
