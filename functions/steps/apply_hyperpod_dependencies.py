"""Step Functions Task "Apply HyperPod Dependencies"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import WorkflowState
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Apply HyperPod Dependencies",
        serves=WorkflowState,
        action=lambda ctx: wiring.cluster_dependencies_service(ctx.region).apply_hyperpod_dependencies(ctx),
    )
