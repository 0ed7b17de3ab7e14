"""Step Functions Task "Delete Dependency Identities"."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import DeleteEksClusterInput
from controlplane.step_runtime import run_step


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(
        event,
        step="Delete Dependency Identities",
        serves=DeleteEksClusterInput,
        action=lambda ctx: wiring.cluster_dependencies_service(ctx.region).delete_dependency_identities(ctx),
    )
