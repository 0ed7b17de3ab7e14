"""What a step is: one declaration says its Task name, the Lambda group whose function serves it, what it runs, the
IAM grants it needs and the stage messages it leaves. Context modules declare their steps with `work` (one service
method on one input shape) or `Step` (bookkeeping that reads the invocation itself); `registry` collects them, the
stack gives each group's role the union of its steps' grants. Not here: any one step."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

from pydantic import BaseModel

from controlplane.access.grant import STEP_TABLES, FunctionAccess, Grant
from controlplane.models.errors import OperationStateError
from controlplane.models.workflow import WorkflowInput, WorkflowState, parse_input
from controlplane.workflows import step_key

Result = BaseModel | Mapping[str, Any]
Served = TypeVar("Served", bound=WorkflowState)


@dataclass(frozen=True)
class Group:
    """One Lambda function and its IAM role, serving the steps that name it (`steps.groups` says how groups are
    chosen)."""

    name: str


@dataclass(frozen=True)
class StepCall:
    """One invocation as every Task sends it: `{"step", "state", "executionArn"}` plus the Task's constants."""

    step: str
    state: Mapping[str, Any]
    execution_arn: str
    constants: Mapping[str, Any]

    @classmethod
    def from_event(cls, event: Mapping[str, Any]) -> StepCall:
        constants = {key: value for key, value in event.items() if key not in ("step", "state", "executionArn")}
        return cls(str(event.get("step", "")), event.get("state") or {}, str(event.get("executionArn", "")), constants)

    @cached_property
    def input(self) -> WorkflowInput:
        """The state parsed once, on first use: a failure can be recorded even when the state is unreadable."""
        return parse_input(self.state)


@dataclass(frozen=True)
class Step:
    """One step. `name`: its Task's. `grants` and `tables`: what its function's role needs for it. `begins`: mark the
    step's stage RUNNING before running it (work steps). `waiting`: the phase persisted after it, before the workflow
    starts polling. `settled`: the phase a poll's check persists once its output says `done`, saying what was done, so
    a finished stage never keeps a "Waiting for …" message. Both are formatted with the workflow state and the step's
    output."""

    name: str
    group: Group
    run: Callable[[StepCall], Result]
    grants: tuple[Grant, ...] = ()
    begins: bool = True
    waiting: str | None = None
    settled: str | None = None
    tables: tuple[str, ...] = STEP_TABLES

    @property
    def key(self) -> str:
        """`ensure_vpc` for "Ensure VPC": how the ASL's placeholder, the sandbox's faults and the stack name it."""
        return step_key(self.name)

    @property
    def access(self) -> FunctionAccess:
        return FunctionAccess(self.grants, self.tables)

    def phase(self, state: Mapping[str, Any], output: Mapping[str, Any]) -> str | None:
        """The stage message this run leaves, if the step notes one."""
        template = self.settled if self.settled and output.get("done") is True else self.waiting
        return template.format(**{**state, **output}) if template else None


def work(
    name: str,
    group: Group,
    serves: type[Served],
    action: Callable[[Served], Result],
    grants: tuple[Grant, ...],
    *,
    waiting: str | None = None,
    settled: str | None = None,
) -> Step:
    """A step that runs one service method on the input shape it serves; another workflow's input is refused."""

    def run(call: StepCall) -> Result:
        ctx = call.input
        if not isinstance(ctx, serves):
            raise OperationStateError(f"Step {call.step} does not run in a {ctx.kind.value} workflow.")
        return action(ctx)

    return Step(name, group, run, grants, waiting=waiting, settled=settled)
