"""Step Functions Task "Release Compute Subnet"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import DeleteInstanceGroupInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Release Compute Subnet",
        serves=DeleteInstanceGroupInput,
        action=lambda ctx: wiring.instance_group_steps(ctx.region).release_compute_subnet(ctx),
    )
