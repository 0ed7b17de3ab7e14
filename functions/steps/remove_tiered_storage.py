"""Step Functions Task "Remove Tiered Storage"."""

from typing import Any

from controlplane import wiring
from controlplane.models.features import Feature
from controlplane.models.workflow import UpdateClusterFeaturesInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Remove Tiered Storage",
        serves=UpdateClusterFeaturesInput,
        action=lambda ctx: wiring.feature_steps(ctx.region).remove(Feature.TIERED_STORAGE, ctx),
    )
