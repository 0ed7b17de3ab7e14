"""Step Functions Task "Check Addons"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import WorkflowState
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Check Addons",
        serves=WorkflowState,
        action=lambda ctx: wiring.cluster_dependencies_service(ctx.region).check_addons(ctx),
    )
