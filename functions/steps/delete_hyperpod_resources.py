"""Step Functions Task "Delete HyperPod Resources"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import DeleteEksClusterInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Delete HyperPod Resources",
        serves=DeleteEksClusterInput,
        action=lambda ctx: wiring.hyperpod_stage(ctx.region).delete_hyperpod_resources(ctx),
    )
