"""Step Functions Task "Add Instance Group"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import AddInstanceGroupInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Add Instance Group",
        serves=AddInstanceGroupInput,
        action=lambda ctx: wiring.instance_group_steps(ctx.region).add_instance_group(ctx),
    )
