"""Step Functions Task "Create HyperPod Cluster".

Persists the stage's phase before the workflow starts polling the HyperPod cluster.
"""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import GroupPlanInput
from controlplane.step_runtime import run_step

STEP = "Create HyperPod Cluster"


def _run(ctx: GroupPlanInput) -> dict[str, str]:
    result = wiring.hyperpod_stage(ctx.region).create_hyperpod_cluster(ctx)
    name = result["clusterName"]
    wiring.operations().note_phase(ctx.operationId, STEP, f"Waiting for {name} and its instance group to be InService")
    return result


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    return run_step(event, step=STEP, serves=GroupPlanInput, action=_run)
