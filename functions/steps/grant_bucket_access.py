"""Step Functions Task "Grant Bucket Access"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import StorageStageInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Grant Bucket Access",
        serves=StorageStageInput,
        action=lambda ctx: wiring.storage_service(ctx.region).grant_bucket_access(ctx),
    )
