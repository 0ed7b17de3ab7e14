"""The one Lambda entry point of every workflow Task: find the step's declaration, mark its stage (refused when the
cluster is no longer the incarnation the workflow was started for: the step never acts), run it, log.

Every Task sends `{"step": <Task name>, "state": <execution state>, "executionArn": ...}` (plus its constants);
`registry.STEPS` says what each step runs. A poll's check (its output a `PollState`) is stamped with the time it
began, before it observed anything: the round's wait for events compares the events handled with it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from controlplane import wiring
from controlplane.models.workflow import PollState
from controlplane.observability import flushing_metrics, logger
from steps import registry
from steps.step import StepCall


@flushing_metrics
def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    began = wiring.clock().now()
    call = StepCall.from_event(event)
    step = registry.step(call.step)
    if step.begins:
        wiring.operations().begin_step(call.input.operationId, call.step, call.input.incarnation)
    result = step.run(call)
    if isinstance(result, PollState):
        result = result.model_copy(update={"checkedAt": began})
    output = result.model_dump(mode="json") if isinstance(result, BaseModel) else dict(result)
    phase = step.phase(call.state, output)
    if phase:
        wiring.operations().note_phase(call.input.operationId, call.step, phase)
    logger().info(
        "step done", extra={"operationId": call.state.get("operationId"), "step": call.step, "output": output}
    )
    return output
