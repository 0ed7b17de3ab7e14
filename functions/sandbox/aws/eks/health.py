"""An add-on's health as EKS reports it from what the add-on runs: whether its Deployments' pods have a node.

EKS marks an add-on whose Deployment lacks its replicas ``DEGRADED`` with the health issue
``InsufficientNumberOfReplicas`` within seconds of its creation, and keeps it so until a node can run its pods
(eksctl #4607 and PR #4332, terraform-aws-eks #3001, pulumi-eks #1819, aws/containers-roadmap #2328; the issue's
shape as aws-ia/terraform-eks-blueprints-addons #335 logs it). A node can run them when it is Ready, not cordoned,
and every NoSchedule or NoExecute taint on it is one the pods tolerate. Not here: which add-on runs what
(`sandbox.aws.eks.catalog`).
"""

from __future__ import annotations

from typing import Any

JsonObject = dict[str, Any]

REPLICAS_ISSUE: JsonObject = {
    "code": "InsufficientNumberOfReplicas",
    "message": "The add-on is unhealthy because it doesn't have the desired number of replicas.",
    "resourceIds": None,
}
_BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def can_run_pods(node: JsonObject, tolerates: tuple[str, ...]) -> bool:
    """Whether the scheduler may place a pod tolerating the taint keys ``tolerates`` on ``node``."""
    conditions = (node.get("status") or {}).get("conditions") or []
    ready = any(condition.get("type") == "Ready" and condition.get("status") == "True" for condition in conditions)
    spec = node.get("spec") or {}
    blocked = any(
        taint.get("effect") in _BLOCKING_EFFECTS and taint.get("key") not in tolerates
        for taint in spec.get("taints") or []
    )
    return ready and not spec.get("unschedulable") and not blocked
