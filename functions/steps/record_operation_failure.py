"""Step Functions Task "Record Operation Failure": the operation FAILED at a named step; earlier stages stay done.

Input: `{"state": <execution state with $.error>, "executionArn": <$$.Execution.Id>}`. The failed
step is named from the execution history, so it is right even when the step's Lambda never ran. Only
`operationId` and `error` are read from the state: a failure must be recordable even when the rest of the
state is what went wrong.
"""

from typing import Any

from controlplane import wiring


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    state = event["state"]
    operation = wiring.operations().fail_execution(
        state["operationId"], event["executionArn"], state.get("error") or {}
    )
    wiring.clusters().record_outcome(operation)
    return {"operationId": operation.operationId, "status": operation.status.value}
