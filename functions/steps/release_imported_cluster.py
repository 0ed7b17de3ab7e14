"""Step Functions Task "Release Imported Cluster"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import DeleteEksClusterInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Release Imported Cluster",
        serves=DeleteEksClusterInput,
        action=lambda ctx: wiring.cluster_import(ctx.region).release_imported_cluster(ctx),
    )
