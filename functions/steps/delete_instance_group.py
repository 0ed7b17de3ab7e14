"""Step Functions Task "Delete Instance Group"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import DeleteInstanceGroupInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Delete Instance Group",
        serves=DeleteInstanceGroupInput,
        action=lambda ctx: wiring.instance_group_steps(ctx.region).delete_instance_group(ctx),
    )
