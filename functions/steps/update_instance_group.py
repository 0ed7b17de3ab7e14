"""Step Functions Task "Update Instance Group"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import UpdateInstanceGroupInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Update Instance Group",
        serves=UpdateInstanceGroupInput,
        action=lambda ctx: wiring.instance_group_steps(ctx.region).update_instance_group(ctx),
    )
