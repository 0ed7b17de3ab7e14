"""Step Functions Task "Delete FSx File Systems"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import DeleteEksClusterInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Delete FSx File Systems",
        serves=DeleteEksClusterInput,
        action=lambda ctx: wiring.storage_service(ctx.region).delete_fsx_file_systems(ctx),
    )
