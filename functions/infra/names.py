"""Deterministic names of the stack's own resources, and the construct IDs derived from table keys.

The state machines have fixed names (one control plane per account and Region), so that IAM policies can name
their executions without referencing them.
"""

from __future__ import annotations

from controlplane.models.operations import OperationKind

PREFIX = "instantstart"


def pascal(snake: str) -> str:
    """`create_eks_cluster` → `CreateEksCluster` (construct IDs, ASL placeholders)."""
    return "".join(part.capitalize() for part in snake.split("_"))


def state_machine_name(kind: OperationKind) -> str:
    return f"{PREFIX}-{kind.value.replace('_', '-')}"
