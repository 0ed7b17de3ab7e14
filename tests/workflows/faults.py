"""Every step of a workflow failing once, in order, in one operation that is resumed after each failure.

Before the operation starts, and before each resume, the next step gets a one-shot fault; the rerun passes
through the steps that finished and fails at that one. One operation proves each step resumable at the cost of
one run per step, where an operation per step would pay for its own cluster and its own earlier steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controlplane.models.operations import OperationKind
from controlplane.workflows import step_key
from controlplane.workflows.definitions import WORKFLOWS
from tests.conftest import RunningSandbox

# A step's key, or the key and how many of its rounds pass before the fault (a poll loop's later round).
Fault = str | tuple[str, int]


def steps_of(kind: OperationKind) -> list[str]:
    """The keys of a workflow's steps in the order they run (its declaration's)."""
    return [step_key(task.step) for _, task in WORKFLOWS[kind].tasks()]


def fail_each_step_in_turn(
    running: RunningSandbox,
    kind: OperationKind,
    start: Callable[[], str],
    faults: Sequence[Fault] | None = None,
    *,
    check: Callable[[dict], None] | None = None,
    limit_seconds: float = 90,
) -> dict:
    """Start an operation of `kind` (`start` sends the request and returns its operationId) with a fault in the
    first of `faults` (every step of the workflow unless given), resume it after each failure with a fault in the
    next, and return it once it has SUCCEEDED after the last.

    Each failure must be that step's, in its own stage, FAILED, with the stages before it SUCCEEDED and those
    after it not started; `check` sees each failed operation too."""
    stage_of = {step_key(task.step): stage for stage, task in WORKFLOWS[kind].tasks() if stage}
    operation_id = ""
    for attempt, fault in enumerate(faults if faults is not None else steps_of(kind), start=1):
        step, after = (fault, 0) if isinstance(fault, str) else fault
        running.sandbox.add_fault(step, 1, after=after)
        operation_id = resume(running, operation_id) if operation_id else start()
        failed = running.wait_terminal(operation_id, limit_seconds)
        assert (failed["status"], failed["attempt"]) == ("FAILED", attempt), (step, failed)
        error = failed["error"]
        assert (error["code"], step_key(error["step"])) == ("SandboxFaultInjected", step), (step, error)
        assert f"Step '{error['step']}' failed" in error["message"]
        statuses = [stage["status"] for stage in failed["stages"]]
        at = [stage["name"] for stage in failed["stages"]].index(stage_of[step])
        assert statuses == ["SUCCEEDED"] * at + ["FAILED"] + ["PENDING"] * (len(statuses) - at - 1), (step, statuses)
        assert running.sandbox.faults.pending() == {}, step
        if check is not None:
            check(failed)
    resume(running, operation_id)
    done = running.wait_terminal(operation_id, limit_seconds)
    assert done["status"] == "SUCCEEDED", done.get("error")
    assert done["attempt"] == attempt + 1
    return done


def resume(running: RunningSandbox, operation_id: str) -> str:
    with running.client() as api:
        response = api.post(f"/operations/{operation_id}/resume")
    assert response.status_code == 202, response.text
    return operation_id
