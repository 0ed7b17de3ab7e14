"""Step Functions Task "Ensure Compute Subnet"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import GroupPlanInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Ensure Compute Subnet",
        serves=GroupPlanInput,
        action=lambda ctx: wiring.hyperpod_stage(ctx.region).ensure_compute_subnet(ctx),
    )
