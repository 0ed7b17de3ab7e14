"""Step Functions Task "Delete Cluster Role" (stage `iam`)."""

from typing import Any

from controlplane import wiring
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        stage="iam",
        step="Delete Cluster Role",
        action=lambda ctx: wiring.eks_stack(ctx.region).delete_cluster_role(ctx),
    )
