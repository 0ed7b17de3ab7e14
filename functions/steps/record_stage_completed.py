"""Step Functions Task "Record Stage Completed" (pipeline only): the registry shows a finished stage at once.

Input: `{"state": <execution state>, "stage": "eks" | "dependencies" | "hyperpod" | "storage"}`.
"""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import WorkflowInput


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    ctx = WorkflowInput.model_validate(event["state"])
    wiring.clusters().record_stage(ctx.operationId, event["stage"])
    return {"operationId": ctx.operationId, "stage": event["stage"]}
