"""Step Functions Task "Delete Network"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import DeleteEksClusterInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Delete Network",
        serves=DeleteEksClusterInput,
        action=lambda ctx: wiring.eks_stack(ctx.region).delete_network(ctx),
    )
