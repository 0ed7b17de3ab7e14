"""Step Functions Task "Delete Feature Identities"."""

from typing import Any

from controlplane import wiring
from controlplane.core.features import DISABLE_ORDER
from controlplane.models.workflow import DeleteEksClusterInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Delete Feature Identities",
        serves=DeleteEksClusterInput,
        action=lambda ctx: wiring.feature_steps(ctx.region).delete_identities(ctx, DISABLE_ORDER),
    )
