"""Step Functions Task "Check Software Update"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import UpdateClusterSoftwareInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Check Software Update",
        serves=UpdateClusterSoftwareInput,
        action=lambda ctx: wiring.instance_group_steps(ctx.region).check_software_update(ctx),
    )
