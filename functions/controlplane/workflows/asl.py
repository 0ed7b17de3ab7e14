"""The generator: a declared workflow → Amazon States Language, with the defaults every Task shares.

Every Task invokes its step's function (`${<Step>FunctionArn}`, through the Lambda integration of the
partition the machine runs in, `${Partition}`) with the same payload — the Task name, the
whole state and the execution's ARN, plus the Task's constants — retries Lambda service errors and
`ResourceNotReadyError` (a dependency still being created), and catches everything into `Record Operation
Failure`. A poll loop with a topic waits in a task-token Task (`lambda:invoke.waitForTaskToken`, the step
`Await HyperPod Event` storing its token) that an event ends early and `$.poll.timeoutSeconds` (the wait, at least
1 s: a Task's timeout must be positive) times out into the same check. The output is deterministic: states in
declaration order, keys in a fixed order, `indent=2`.
"""

from __future__ import annotations

import json
from typing import Any

from controlplane.workflows import PARTITION, placeholder
from controlplane.workflows.spec import (
    AWAIT_EVENT,
    RECORD_FAILURE,
    RECORD_SUCCESS,
    Block,
    Branch,
    Poll,
    Task,
    Workflow,
)

LAMBDA_INVOKE = "arn:${" + PARTITION + "}:states:::lambda:invoke"
LAMBDA_INVOKE_WITH_TOKEN = LAMBDA_INVOKE + ".waitForTaskToken"
AWAIT_COMMENT = (
    "Parks until a HyperPod event of the cluster wakes it, or $.poll.timeoutSeconds pass (the fallback poll); either "
    "way the check runs next."
)
TIMEOUT_SECONDS = 90
RETRY = (
    {
        "ErrorEquals": [
            "Lambda.ServiceException",
            "Lambda.AWSLambdaException",
            "Lambda.SdkClientException",
            "Lambda.TooManyRequestsException",
        ],
        "IntervalSeconds": 2,
        "MaxAttempts": 3,
        "BackoffRate": 2.0,
    },
    {"ErrorEquals": ["ResourceNotReadyError"], "IntervalSeconds": 5, "MaxAttempts": 12, "BackoffRate": 1.5},
)
POLL_RESULT = {
    "done.$": "$.Payload.done",
    "attempts.$": "$.Payload.attempts",
    "waitSeconds.$": "$.Payload.waitSeconds",
    "startedAt.$": "$.Payload.startedAt",
}
POLL_BY_EVENT_RESULT: dict[str, Any] = {
    **POLL_RESULT,
    "timeoutSeconds.$": "$.Payload.timeoutSeconds",
    "checkedAt.$": "$.Payload.checkedAt",
    "byEvent": True,
}
SUCCEEDED = "Succeeded"
FAILED = "Failed"
FAILED_CAUSE = "A step failed; the operation record names it and can be resumed."
POLL_RESET_COMMENT = "The next poll loop counts its own checks and deadline."


def text(workflow: Workflow) -> str:
    """The file content of `statemachines/<kind>.asl.json`."""
    return json.dumps(definition(workflow), indent=2) + "\n"


def definition(workflow: Workflow) -> dict[str, Any]:
    states: dict[str, dict[str, Any]] = {}
    _emit(workflow.body, RECORD_SUCCESS, states)
    _add(states, RECORD_SUCCESS, _task(Task(RECORD_SUCCESS), SUCCEEDED))
    _add(states, SUCCEEDED, {"Type": "Succeed"})
    _add(states, RECORD_FAILURE, _task(Task(RECORD_FAILURE), FAILED, failure=FAILED))
    _add(states, FAILED, {"Type": "Fail", "Error": "OperationFailed", "Cause": FAILED_CAUSE})
    return {"Comment": workflow.comment, "StartAt": _entry(workflow.body[0]), "States": states}


def _emit(blocks: tuple[Block, ...], after: str, states: dict[str, dict[str, Any]]) -> None:
    """Add the states of `blocks`, chained in order, the last one going to `after`."""
    for index, block in enumerate(blocks):
        then = _entry(blocks[index + 1]) if index + 1 < len(blocks) else after
        if isinstance(block, Task):
            _add(states, block.state, _task(block, then))
        elif isinstance(block, Poll):
            _poll(block, then, states)
        elif isinstance(block, Branch):
            choices = [{**block.rule, "Next": _entry(block.body[0])}]
            _add(
                states, block.choice, {"Type": "Choice", "Comment": block.comment, "Choices": choices, "Default": then}
            )
            _emit(block.body, then, states)
        else:
            _emit(block.body, then, states)


def _poll(poll: Poll, then: str, states: dict[str, dict[str, Any]]) -> None:
    """Task → Choice (done?) → Wait (SecondsPath) → Task; when done, a Pass clears `$.poll` and goes on."""
    selector = POLL_BY_EVENT_RESULT if poll.topic else POLL_RESULT
    _add(states, poll.step, _task(Task(poll.step), poll.choice, result_selector=selector))
    done = [{"Variable": "$.poll.done", "BooleanEquals": True, "Next": poll.done_state}]
    _add(states, poll.choice, {"Type": "Choice", "Choices": done, "Default": poll.wait})
    if poll.topic:
        _add(states, poll.wait, _await_event(poll))
    else:
        _add(states, poll.wait, {"Type": "Wait", "SecondsPath": "$.poll.waitSeconds", "Next": poll.step})
    reset = {"Type": "Pass", "Comment": POLL_RESET_COMMENT, "Result": None, "ResultPath": "$.poll", "Next": then}
    _add(states, poll.done_state, reset)


def _await_event(poll: Poll) -> dict[str, Any]:
    """The Wait of an event-ended loop: a task-token Task that an event or the fallback timeout ends."""
    state = _task(Task(AWAIT_EVENT, constants={"topic": poll.topic}), poll.step)
    state["Resource"] = LAMBDA_INVOKE_WITH_TOKEN
    state["Parameters"]["Payload"]["taskToken.$"] = "$$.Task.Token"
    del state["TimeoutSeconds"]
    timeout = {"ErrorEquals": ["States.Timeout"], "ResultPath": None, "Next": poll.step}
    return {
        "Type": "Task",
        "Comment": AWAIT_COMMENT,
        **{key: value for key, value in state.items() if key != "Type"},
        "TimeoutSecondsPath": "$.poll.timeoutSeconds",
        "Catch": [timeout, *state["Catch"]],
    }


def _entry(block: Block) -> str:
    """The name of a block's first state."""
    if isinstance(block, Task | Poll):
        return block.state
    if isinstance(block, Branch):
        return block.choice
    return _entry(block.body[0])


def _task(
    task: Task, then: str, *, result_selector: dict[str, Any] | None = None, failure: str = RECORD_FAILURE
) -> dict[str, Any]:
    payload = {"step": task.step, "state.$": "$", "executionArn.$": "$$.Execution.Id", **task.constants}
    state: dict[str, Any] = {
        "Type": "Task",
        "Resource": LAMBDA_INVOKE,
        "Parameters": {"FunctionName": "${" + placeholder(task.step) + "}", "Payload": payload},
        "TimeoutSeconds": TIMEOUT_SECONDS,
    }
    if result_selector:
        state |= {"ResultSelector": result_selector, "ResultPath": "$.poll"}
    elif task.keep:
        kept = {f"{name}.$": f"$.Payload.{name}" for name in task.kept}
        state |= {"ResultSelector": kept, "ResultPath": f"$.{task.keep}"}
    else:
        state["ResultPath"] = None
    state |= {
        "Retry": [dict(retry) for retry in RETRY],
        "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": failure}],
        "Next": then,
    }
    return state


def _add(states: dict[str, dict[str, Any]], name: str, state: dict[str, Any]) -> None:
    if name in states:
        raise ValueError(f"State {name!r} is declared twice; give one of its Tasks a name of its own")
    states[name] = state
