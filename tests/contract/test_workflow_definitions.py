"""The ASL files, the step modules and the stage catalog agree with each other."""

from __future__ import annotations

import importlib
import json

import pytest

from controlplane.core.stages import WORKFLOW_STAGES
from controlplane.models.operations import OperationKind
from controlplane.workflows import definition_text, placeholders, step_module

LAMBDA_SERVICE_ERRORS = {
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
}
BOOKKEEPING = {"Record Operation Success", "Record Operation Failure"}
PIPELINE_BOOKKEEPING = "Record Stage Completed"


def states(kind: OperationKind) -> dict[str, dict]:
    return json.loads(definition_text(kind))["States"]


@pytest.mark.parametrize("kind", list(OperationKind))
def test_every_task_retries_lambda_service_errors_and_catches_everything(kind):
    for name, state in states(kind).items():
        if state["Type"] != "Task":
            continue
        retried = {error for retry in state["Retry"] for error in retry["ErrorEquals"]}
        assert retried >= LAMBDA_SERVICE_ERRORS, name
        assert all(retry["MaxAttempts"] <= 12 for retry in state["Retry"]), name
        assert any("States.ALL" in catch["ErrorEquals"] for catch in state["Catch"]), name
        assert state["TimeoutSeconds"] <= 900, name


@pytest.mark.parametrize("kind", list(OperationKind))
def test_every_task_names_a_step_module_with_a_lambda_handler(kind):
    for name, state in states(kind).items():
        if state["Type"] != "Task":
            continue
        (placeholder,) = placeholders(json.dumps(state["Parameters"]["FunctionName"]))
        module = importlib.import_module(f"steps.{step_module(placeholder)}")
        assert callable(module.lambda_handler)
        # Names line up across layers; a state used more than once in a workflow adds a suffix.
        assert name.lower().replace(" ", "_").startswith(module.__name__.rsplit(".", 1)[1]), name


@pytest.mark.parametrize("kind", list(OperationKind))
def test_the_stage_catalog_lists_exactly_the_workflow_steps(kind):
    tasks = {
        name
        for name, state in states(kind).items()
        if state["Type"] == "Task" and not name.startswith(PIPELINE_BOOKKEEPING)
    } - BOOKKEEPING
    catalogued = [step for steps in WORKFLOW_STAGES[kind].values() for step in steps]
    assert sorted(catalogued) == sorted(tasks)


@pytest.mark.parametrize("kind", list(OperationKind))
def test_waits_read_their_duration_from_state_so_tests_can_run_fast(kind):
    waits = [state for state in states(kind).values() if state["Type"] == "Wait"]
    assert all("SecondsPath" in wait and "Seconds" not in wait for wait in waits)


@pytest.mark.parametrize("kind", list(OperationKind))
def test_every_path_ends_by_recording_the_outcome(kind):
    machine = states(kind)
    assert machine["Record Operation Success"]["Next"] == "Succeeded"
    assert machine["Record Operation Failure"]["Next"] == "Failed"
    catches = {catch["Next"] for state in machine.values() for catch in state.get("Catch", [])}
    assert catches == {"Record Operation Failure", "Failed"}
