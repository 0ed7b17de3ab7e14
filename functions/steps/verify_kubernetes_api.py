"""Step Functions Task "Verify Kubernetes API"."""

from typing import Any

from controlplane import wiring
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Verify Kubernetes API",
        action=lambda ctx: wiring.eks_stack(ctx.region).verify_kubernetes_api(ctx),
    )
