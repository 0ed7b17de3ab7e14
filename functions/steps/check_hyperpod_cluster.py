"""Step Functions Task "Check HyperPod Cluster"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import WorkflowState
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Check HyperPod Cluster",
        serves=WorkflowState,
        action=lambda ctx: wiring.hyperpod_stage(ctx.region).check_hyperpod_cluster(ctx),
    )
