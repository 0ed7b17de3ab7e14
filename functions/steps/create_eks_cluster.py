"""Step Functions Task "Create EKS Cluster" (stage `eks-control-plane`).

Persists the stage's phase before the workflow starts polling the cluster.
"""

from typing import Any

from controlplane import wiring
from controlplane.step_runtime import run_step
from controlplane.models.workflow import WorkflowInput

STAGE = "eks-control-plane"


def _create(ctx: WorkflowInput) -> dict[str, str]:
    result = wiring.eks_stack(ctx.region).create_eks_cluster(ctx)
    wiring.operations().note_stage(ctx.operationId, STAGE, f"Waiting for {result['clusterName']} to become ACTIVE")
    return result


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(event, stage=STAGE, step="Create EKS Cluster", action=_create)
