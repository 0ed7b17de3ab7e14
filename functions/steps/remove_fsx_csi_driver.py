"""Step Functions Task "Remove Fsx Csi Driver"."""

from typing import Any

from controlplane import wiring
from controlplane.models.features import Feature
from controlplane.models.workflow import UpdateClusterFeaturesInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Remove Fsx Csi Driver",
        serves=UpdateClusterFeaturesInput,
        action=lambda ctx: wiring.feature_steps(ctx.region).remove(Feature.FSX_CSI_DRIVER, ctx),
    )
