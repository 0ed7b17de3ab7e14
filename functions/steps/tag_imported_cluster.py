"""Step Functions Task "Tag Imported Cluster"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import ImportClusterInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Tag Imported Cluster",
        serves=ImportClusterInput,
        action=lambda ctx: wiring.cluster_import(ctx.region).tag_imported_cluster(ctx),
    )
