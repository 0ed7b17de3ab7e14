"""The operation's bookkeeping: its outcome recorded at the end of every workflow, and the pipeline's finished
stages. These steps read the invocation itself (a failure is recorded even when the state is unreadable) and touch
DynamoDB only, besides the failed execution's history."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.grant import STEP_TABLES, Grant
from controlplane.access.workflows import EXECUTIONS, EXECUTIONS_REASON
from controlplane.models.clusters import StageName
from controlplane.models.errors import OperationStateError
from controlplane.models.workflow import CreateClusterInput
from controlplane.workflows.definitions import RECORD_STAGE_COMPLETED
from controlplane.workflows.spec import RECORD_FAILURE, RECORD_SUCCESS
from steps.groups import OPERATIONS
from steps.step import Step, StepCall


def _record_success(call: StepCall) -> dict[str, str]:
    """The operation SUCCEEDED; the registry reflects it and the cluster lock is free before the status says so."""
    operation = wiring.operations().succeed(call.input.operationId)
    return {"operationId": operation.operationId, "status": operation.status.value}


def _record_failure(call: StepCall) -> dict[str, str]:
    """The operation FAILED at the state the execution history names (right even when its Lambda never ran).

    Reads only `operationId` and `error` from the state: the rest of the state may be what went wrong.
    """
    state = call.state
    operation = wiring.operations().fail_execution(state["operationId"], call.execution_arn, state.get("error") or {})
    return {"operationId": operation.operationId, "status": operation.status.value}


def _record_stage_completed(call: StepCall) -> dict[str, str]:
    """Pipeline only: the registry shows a finished stage (the Task's constant `stage`) at once."""
    ctx = call.input
    if not isinstance(ctx, CreateClusterInput):
        raise OperationStateError(f"Record Stage Completed does not run in a {ctx.kind.value} workflow.")
    stage = StageName(str(call.constants["stage"]))
    wiring.clusters().record_stage(ctx, stage)
    return {"operationId": ctx.operationId, "stage": stage.value}


STEPS = (
    # A deletion's success forgets what was kept beside the cluster: its drift report and remediation policy.
    Step(
        RECORD_SUCCESS, OPERATIONS, _record_success, begins=False, tables=(*STEP_TABLES, "drift_table", "events_table")
    ),
    Step(RECORD_STAGE_COMPLETED, OPERATIONS, _record_stage_completed, begins=False),
    Step(
        RECORD_FAILURE,
        OPERATIONS,
        _record_failure,
        (Grant(("states:GetExecutionHistory",), EXECUTIONS, reason=EXECUTIONS_REASON),),
        begins=False,
    ),
)
