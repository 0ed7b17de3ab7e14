"""Step Functions Task "Delete EKS Cluster".

Persists the stage's phase before the workflow starts polling for the cluster to disappear.
"""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import DeleteEksClusterInput
from controlplane.step_runtime import run_step

STEP = "Delete EKS Cluster"


def _delete(ctx: DeleteEksClusterInput) -> dict[str, str]:
    result = wiring.eks_stack(ctx.region).delete_eks_cluster(ctx)
    wiring.operations().note_phase(ctx.operationId, STEP, f"Waiting for {result['clusterName']} to be deleted")
    return result


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(event, step=STEP, serves=DeleteEksClusterInput, action=_delete)
