"""Step Functions Task "Delete HyperPod Cluster".

Persists the stage's phase before the workflow starts polling the HyperPod cluster.
"""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import DeleteEksClusterInput
from controlplane.step_runtime import run_step

STEP = "Delete HyperPod Cluster"


def _run(ctx: DeleteEksClusterInput) -> dict[str, str]:
    result = wiring.hyperpod_stage(ctx.region).delete_hyperpod_cluster(ctx)
    name = result["clusterName"]
    wiring.operations().note_phase(ctx.operationId, STEP, f"Waiting for {name} to be deleted")
    return result


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(event, step=STEP, serves=DeleteEksClusterInput, action=_run)
