"""Step Functions Task "Ensure Internet Gateway"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import EksStageInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Ensure Internet Gateway",
        serves=EksStageInput,
        action=lambda ctx: wiring.eks_stack(ctx.region).ensure_internet_gateway(ctx),
    )
