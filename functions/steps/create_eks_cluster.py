"""Step Functions Task "Create EKS Cluster".

Persists the stage's phase before the workflow starts polling the cluster.
"""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import EksStageInput
from controlplane.step_runtime import run_step

STEP = "Create EKS Cluster"


def _create(ctx: EksStageInput) -> dict[str, str]:
    result = wiring.eks_stack(ctx.region).create_eks_cluster(ctx)
    wiring.operations().note_phase(ctx.operationId, STEP, f"Waiting for {result['clusterName']} to become ACTIVE")
    return result


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(event, step=STEP, serves=EksStageInput, action=_create)
