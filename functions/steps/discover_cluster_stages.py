"""Step Functions Task "Discover Cluster Stages"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import ImportClusterInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Discover Cluster Stages",
        serves=ImportClusterInput,
        action=lambda ctx: wiring.cluster_import(ctx.region).discover_cluster_stages(ctx),
    )
