"""The one step handler: it finds the Task's declaration, marks its stage, runs it, and returns its output."""

from __future__ import annotations

import pytest

from controlplane import wiring
from controlplane.models.workflow import PollState, WorkflowState
from steps import registry
from steps.handler import lambda_handler
from steps.step import Group, Step, work
from tests.fakes.persistence import FakeClock

GROUP = Group("things")
STATE = {
    "operationId": "op-1",
    "kind": "configure_cluster_dependencies",
    "clusterTag": "demo",
    "incarnation": "inc-demo",
    "region": "us-west-2",
    "accountId": "123456789012",
    "eksClusterName": "eks-cluster-demo",
    "hyperPodClusterName": "hp-cluster-demo",
    "imported": False,
}


class RecordingOperations:
    """Stands in for the operation service: records what the handler tells it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def begin_step(self, operation_id: str, step: str, incarnation: str) -> None:
        self.calls.append(("begin_step", operation_id, step, incarnation))

    def note_phase(self, operation_id: str, step: str, message: str) -> None:
        self.calls.append(("note_phase", operation_id, step, message))


@pytest.fixture
def operations(monkeypatch: pytest.MonkeyPatch) -> RecordingOperations:
    recording = RecordingOperations()
    monkeypatch.setattr(wiring, "operations", lambda: recording)
    return recording


def invoke(step: str, state: dict, **constants: str) -> dict:
    return lambda_handler({"step": step, "state": state, "executionArn": "arn:execution", **constants}, None)


def test_a_work_step_marks_its_stage_running_then_returns_its_output(operations, monkeypatch):
    monkeypatch.setitem(
        registry.STEPS,
        "Check Thing",
        work("Check Thing", GROUP, WorkflowState, lambda ctx: PollState(done=True, attempts=1, waitSeconds=0), ()),
    )
    monkeypatch.setattr(wiring, "clock", FakeClock)
    expected = {
        "done": True,
        "attempts": 1,
        "waitSeconds": 0,
        "status": None,
        "startedAt": None,
        "checkedAt": "2026-12-02T12:00:00Z",
        "timeoutSeconds": 1,
    }
    assert invoke("Check Thing", STATE) == expected
    assert operations.calls == [("begin_step", "op-1", "Check Thing", "inc-demo")]


def test_a_check_is_stamped_with_when_it_began_before_it_observed_anything(operations, monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(wiring, "clock", lambda: clock)

    def observe(ctx: WorkflowState) -> PollState:
        clock.sleep(3)  # the check's reads take time; an event may be handled meanwhile
        return PollState(done=False, attempts=1, waitSeconds=30)

    monkeypatch.setitem(registry.STEPS, "Check Thing", work("Check Thing", GROUP, WorkflowState, observe, ()))
    assert invoke("Check Thing", STATE)["checkedAt"] == "2026-12-02T12:00:00Z"


def test_a_step_that_starts_a_wait_persists_its_phase_from_its_output(operations, monkeypatch):
    step = work(
        "Create Thing",
        GROUP,
        WorkflowState,
        lambda ctx: {"clusterName": ctx.eksClusterName},
        (),
        waiting="Waiting for {clusterName}",
    )
    monkeypatch.setitem(registry.STEPS, "Create Thing", step)
    invoke("Create Thing", STATE)
    assert operations.calls[-1] == ("note_phase", "op-1", "Create Thing", "Waiting for eks-cluster-demo")


def test_a_bookkeeping_step_reads_the_raw_state_and_its_constants_without_parsing_the_state(operations, monkeypatch):
    seen = Step(
        "Record Thing", GROUP, lambda call: {"operationId": call.state["operationId"], **call.constants}, begins=False
    )
    monkeypatch.setitem(registry.STEPS, "Record Thing", seen)
    unreadable = {"operationId": "op-1", "kind": "no-such-workflow"}
    assert invoke("Record Thing", unreadable, stage="eks") == {"operationId": "op-1", "stage": "eks"}
    assert operations.calls == []


def test_an_unknown_step_is_an_error_that_names_the_known_steps(operations):
    with pytest.raises(registry.UnknownStepError, match=r"'Ensure Nothing'.*Ensure VPC"):
        invoke("Ensure Nothing", STATE)
    assert operations.calls == []
