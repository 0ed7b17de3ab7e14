"""Deterministic names of the stack's own resources, and the construct IDs derived from table keys.

The state machines, the Kubernetes access and view roles and the event forwarding role have fixed names, so that
IAM policies and nested stacks can name them without referencing them. Each starts with the deployment name (context
`deploymentName`, default `instantstart`): two deployments fit one account and Region. The names themselves are
`controlplane.core.naming`'s (the sandbox names its resources with them too); here they take the stack's Region.
"""

from __future__ import annotations

import re

from aws_cdk import Aws
from constructs import Construct

from controlplane.core import naming
from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, DEPLOYMENT_NAME_PATTERN, Deployment

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


def _here(deployment: str) -> Deployment:
    """The deployment in the stack's own Region and partition (tokens)."""
    return Deployment(deployment, Aws.REGION, Aws.PARTITION)


def _role_arn(deployment: str, role_name: str) -> str:
    return _here(deployment).role_arn(Aws.ACCOUNT_ID, role_name)


def kubernetes_role_name(deployment: str) -> str:
    return naming.kubernetes_role_name(_here(deployment))


def kubernetes_role_arn(deployment: str) -> str:
    """The Kubernetes access role's ARN, built from its name: steps in nested stacks name it without a
    reference, so the role can trust their roles without a dependency cycle."""
    return _role_arn(deployment, kubernetes_role_name(deployment))


def kubernetes_view_role_name(deployment: str) -> str:
    return naming.kubernetes_view_role_name(_here(deployment))


def kubernetes_view_role_arn(deployment: str) -> str:
    """Named like the access role: the steps that create its access entries name it without a reference."""
    return _role_arn(deployment, kubernetes_view_role_name(deployment))


def kubernetes_jobs_role_name(deployment: str) -> str:
    return naming.kubernetes_jobs_role_name(_here(deployment))


def kubernetes_jobs_role_arn(deployment: str) -> str:
    """Named like the access role: the steps that create its access entries name it without a reference."""
    return _role_arn(deployment, kubernetes_jobs_role_name(deployment))


def event_forwarding_role_name(deployment: str) -> str:
    return naming.event_forwarding_role_name(_here(deployment))


def event_forwarding_role_arn(deployment: str) -> str:
    """Named like the access role: the steps that pass it to EventBridge name it without a reference."""
    return _role_arn(deployment, event_forwarding_role_name(deployment))
