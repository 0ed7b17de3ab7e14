"""Step Functions Task "Ensure Data Bucket"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import StorageStageInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Ensure Data Bucket",
        serves=StorageStageInput,
        action=lambda ctx: wiring.storage_service(ctx.region).ensure_data_bucket(ctx),
    )
