"""Step Functions Task "Record Operation Failure": the operation FAILED at a named step; earlier stages stay done.

Input: `{"state": <execution state with $.error>, "executionArn": <$$.Execution.Id>}`. The failed
step is named from the execution history, so it is right even when the step's Lambda never ran.
"""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import WorkflowInput


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    ctx = WorkflowInput.model_validate(event["state"])
    operation = wiring.operations().fail_execution(ctx.operationId, event["executionArn"], ctx.error or {})
    wiring.clusters().record_outcome(operation)
    return {"operationId": operation.operationId, "status": operation.status.value}
