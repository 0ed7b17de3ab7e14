"""The steps table is collected from the contexts' declarations and checked against the workflows on import: a Task
without a declaration, a step no workflow runs, or a name declared twice fails loudly."""

from __future__ import annotations

import pytest

from controlplane.models.operations import OperationKind
from controlplane.workflows.definitions import WORKFLOWS
from controlplane.workflows.spec import Poll, Stage, Task, Workflow
from steps.registry import STEPS, UndeclaredStepError, collect
from steps.step import Group, Step

GROUP = Group("things")


def declared(*names: str) -> list[Step]:
    return [Step(name, GROUP, lambda call: {}) for name in names]


def workflow(*body: Task | Poll) -> Workflow:
    return Workflow(OperationKind.REBOOT_NODES, "A test workflow.", Stage("nodes", *body))


def test_a_task_that_no_context_declares_fails_and_is_named():
    with pytest.raises(UndeclaredStepError, match=r"Tasks without a step declaration.*Ensure Widget"):
        collect(declared("Record Operation Success", "Record Operation Failure"), [workflow(Task("Ensure Widget"))])


def test_an_event_ended_poll_needs_the_event_wait_declared():
    steps = declared("Record Operation Success", "Record Operation Failure", "Check Widget")
    with pytest.raises(UndeclaredStepError, match="Await HyperPod Event"):
        collect(steps, [workflow(Poll("Check Widget", "Is Widget Ready", "Wait For Widget", topic="nodes"))])


def test_a_step_that_no_workflow_runs_fails():
    steps = declared("Record Operation Success", "Record Operation Failure", "Ensure Widget", "Ensure Gadget")
    with pytest.raises(UndeclaredStepError, match="no workflow runs: Ensure Gadget"):
        collect(steps, [workflow(Task("Ensure Widget"))])


def test_a_step_declared_twice_fails():
    with pytest.raises(UndeclaredStepError, match="'Ensure Widget' is declared twice"):
        collect(declared("Ensure Widget", "Ensure Widget"), [workflow(Task("Ensure Widget"))])


def test_the_table_holds_exactly_the_steps_the_workflows_run():
    assert set(STEPS) == {step for workflow in WORKFLOWS.values() for step in workflow.steps()}
    assert all(name == step.name for name, step in STEPS.items())
