"""Step Functions Task "Check Instance Group"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import InstanceGroupInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Check Instance Group",
        serves=InstanceGroupInput,
        action=lambda ctx: wiring.instance_group_steps(ctx.region).check_instance_group(ctx),
    )
