"""Step Functions Task "Check FSx File System"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import StorageStageInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Check FSx File System",
        serves=StorageStageInput,
        action=lambda ctx: wiring.storage_service(ctx.region).check_fsx_file_system(ctx),
    )
