"""Step Functions Task "Ensure Observability"."""

from typing import Any

from controlplane import wiring
from controlplane.models.features import Feature
from controlplane.models.workflow import FeatureChangesInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Ensure Observability",
        serves=FeatureChangesInput,
        action=lambda ctx: wiring.feature_steps(ctx.region).ensure(Feature.OBSERVABILITY, ctx),
    )
