"""Step Functions Task "Ensure Access Entry"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import WorkflowState
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Ensure Access Entry",
        serves=WorkflowState,
        action=lambda ctx: wiring.eks_stack(ctx.region).ensure_access_entry(ctx),
    )
