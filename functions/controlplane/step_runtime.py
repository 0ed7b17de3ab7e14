"""What every workflow step does around its work: parse the state, advance the operation, log.

A step module names its state and the service method it runs; the state's stage comes from core.stages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from controlplane import wiring
from controlplane.models.workflow import WorkflowInput
from controlplane.observability import logger


def run_step(
    event: dict[str, Any], *, step: str, action: Callable[[WorkflowInput], BaseModel | dict[str, Any]]
) -> dict[str, Any]:
    ctx = WorkflowInput.model_validate(event)
    wiring.operations().begin_step(ctx.operationId, step)
    result = action(ctx)
    output = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    logger().info("step done", extra={"operationId": ctx.operationId, "step": step, "output": output})
    return output
