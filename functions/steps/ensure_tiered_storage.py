"""Step Functions Task "Ensure Tiered Storage"."""

from typing import Any

from controlplane import wiring
from controlplane.models.features import Feature
from controlplane.models.workflow import FeatureChangesInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Ensure Tiered Storage",
        serves=FeatureChangesInput,
        action=lambda ctx: wiring.feature_steps(ctx.region).ensure(Feature.TIERED_STORAGE, ctx),
    )
