"""Step Functions Task "Apply FSx Claim"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import StorageStageInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Apply FSx Claim",
        serves=StorageStageInput,
        action=lambda ctx: wiring.storage_service(ctx.region).apply_fsx_claim(ctx),
    )
