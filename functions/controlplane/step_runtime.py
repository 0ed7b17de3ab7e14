"""What every workflow step does around its work: parse the state, advance the operation, log.

A step module names its state, the input shape its service method serves and the method; the state's stage
comes from core.stages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from controlplane import wiring
from controlplane.models.errors import OperationStateError
from controlplane.models.workflow import WorkflowState, parse_input
from controlplane.observability import logger

Served = TypeVar("Served", bound=WorkflowState)


def run_step(
    event: dict[str, Any],
    *,
    step: str,
    serves: type[Served],
    action: Callable[[Served], BaseModel | dict[str, Any]],
) -> dict[str, Any]:
    ctx = parse_input(event)
    if not isinstance(ctx, serves):
        raise OperationStateError(f"Step {step} does not run in a {ctx.kind.value} workflow.")
    wiring.operations().begin_step(ctx.operationId, step)
    result = action(ctx)
    output = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    logger().info("step done", extra={"operationId": ctx.operationId, "step": step, "output": output})
    return output
