"""The ASL files, the workflow declarations, the steps table and the stage catalog agree with each other."""

from __future__ import annotations

import json

import pytest

from controlplane.core.features import DISABLE_ORDER, ENABLE_ORDER
from controlplane.core.stages import WORKFLOW_STAGES
from controlplane.models.operations import OperationKind
from controlplane.workflows import (
    PARTITION,
    definition_text,
    placeholder,
    placeholders,
    step_key,
    substitute,
)
from controlplane.workflows.asl import AWAIT_EVENT, text
from controlplane.workflows.definitions import WORKFLOWS
from steps.registry import STEPS

LAMBDA_SERVICE_ERRORS = {
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
}
BOOKKEEPING = {"Record Operation Success", "Record Operation Failure"}
PIPELINE_BOOKKEEPING = "Record Stage Completed"
STAGE_WORKFLOWS = {
    "eks": OperationKind.CREATE_EKS_CLUSTER,
    "dependencies": OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES,
    "hyperpod": OperationKind.CREATE_HYPERPOD_CLUSTER,
    "storage": OperationKind.CONFIGURE_STORAGE,
}


def states(kind: OperationKind) -> dict[str, dict]:
    return json.loads(definition_text(kind))["States"]


def is_await(state: dict) -> bool:
    """The task-token Task of an event-ended wait loop (the loop's Wait, not a step of its own)."""
    return state["Type"] == "Task" and state["Resource"].endswith(".waitForTaskToken")


def tasks(kind: OperationKind) -> dict[str, dict]:
    """The step Tasks (the event waits' task-token Tasks aside)."""
    return {name: state for name, state in states(kind).items() if state["Type"] == "Task" and not is_await(state)}


@pytest.mark.parametrize("kind", list(OperationKind))
def test_every_event_wait_parks_its_token_and_times_out_into_its_check(kind):
    for name, state in states(kind).items():
        if not is_await(state):
            continue
        payload = state["Parameters"]["Payload"]
        assert payload["step"] == AWAIT_EVENT and payload["taskToken.$"] == "$$.Task.Token", name
        assert payload["topic"] in ("cluster", "nodes"), name
        assert state["Parameters"]["FunctionName"] == "${" + placeholder(AWAIT_EVENT) + "}", name
        assert state["TimeoutSecondsPath"] == "$.poll.timeoutSeconds", name
        check = states(kind)[state["Next"]]
        assert check["ResultSelector"]["timeoutSeconds.$"] == "$.Payload.timeoutSeconds", name
        timeout, failure = state["Catch"]
        assert timeout == {"ErrorEquals": ["States.Timeout"], "ResultPath": None, "Next": state["Next"]}, name
        assert failure["ErrorEquals"] == ["States.ALL"] and failure["Next"] == "Record Operation Failure", name
        assert {error for retry in state["Retry"] for error in retry["ErrorEquals"]} >= LAMBDA_SERVICE_ERRORS


@pytest.mark.parametrize("kind", list(OperationKind))
def test_the_checked_in_asl_is_what_the_declaration_generates(kind):
    assert definition_text(kind) == text(WORKFLOWS[kind]), "run `make workflows` and commit statemachines/"


def test_every_operation_kind_has_one_declared_workflow():
    assert set(WORKFLOWS) == set(OperationKind)
    assert all(workflow.kind == kind for kind, workflow in WORKFLOWS.items())


@pytest.mark.parametrize("kind", list(OperationKind))
def test_every_task_retries_lambda_service_errors_and_catches_everything(kind):
    for name, state in tasks(kind).items():
        retried = {error for retry in state["Retry"] for error in retry["ErrorEquals"]}
        assert retried >= LAMBDA_SERVICE_ERRORS, name
        assert all(retry["MaxAttempts"] <= 12 for retry in state["Retry"]), name
        assert any("States.ALL" in catch["ErrorEquals"] for catch in state["Catch"]), name
        assert state["TimeoutSeconds"] <= 900, name


@pytest.mark.parametrize("kind", list(OperationKind))
def test_every_task_sends_its_step_the_state_and_the_execution_to_the_steps_function(kind):
    for name, state in tasks(kind).items():
        payload = state["Parameters"]["Payload"]
        assert payload["state.$"] == "$" and payload["executionArn.$"] == "$$.Execution.Id", name
        assert payload["step"] in STEPS, name
        # Names line up across layers; a step used more than once in a workflow gives its state a suffix.
        assert name.startswith(payload["step"]), name
        assert state["Parameters"]["FunctionName"] == "${" + placeholder(payload["step"]) + "}", name


@pytest.mark.parametrize("kind", list(OperationKind))
def test_the_steps_a_declaration_names_are_the_steps_its_asl_invokes(kind):
    """What the steps table is checked against on import (`Workflow.steps`) is what the generated ASL runs."""
    invoked = {state["Parameters"]["Payload"]["step"] for state in states(kind).values() if state["Type"] == "Task"}
    assert WORKFLOWS[kind].steps() == invoked
    assert {step_key(p) for p in placeholders(definition_text(kind))} == {step_key(step) for step in invoked}


@pytest.mark.parametrize(
    ("name", "key", "arn_placeholder"),
    [
        ("Create FSx File System", "create_fsx_file_system", "CreateFsxFileSystemFunctionArn"),
        ("Ensure S3 CSI Driver Role", "ensure_s3_csi_driver_role", "EnsureS3CsiDriverRoleFunctionArn"),
        ("Apply HyperPod Dependencies", "apply_hyperpod_dependencies", "ApplyHyperpodDependenciesFunctionArn"),
    ],
)
def test_a_step_is_named_the_same_by_its_task_its_key_and_its_placeholder(name, key, arn_placeholder):
    assert step_key(name) == step_key(key) == step_key(arn_placeholder) == key
    assert placeholder(name) == placeholder(key) == arn_placeholder


@pytest.mark.parametrize("kind", list(OperationKind))
def test_the_stage_catalog_is_the_declarations_stages(kind):
    assert WORKFLOW_STAGES[kind] == WORKFLOWS[kind].stages()


@pytest.mark.parametrize("kind", list(OperationKind))
def test_the_stage_catalog_lists_exactly_the_workflow_steps(kind):
    steps = {name for name in tasks(kind) if not name.startswith(PIPELINE_BOOKKEEPING)} - BOOKKEEPING
    catalogued = [step for steps in WORKFLOW_STAGES[kind].values() for step in steps]
    assert sorted(catalogued) == sorted(steps)


def test_the_pipeline_runs_each_stage_workflow_as_one_stage_then_records_it():
    pipeline = states(OperationKind.CREATE_CLUSTER)
    assert list(WORKFLOW_STAGES[OperationKind.CREATE_CLUSTER]) == list(STAGE_WORKFLOWS)
    for stage, kind in STAGE_WORKFLOWS.items():
        own = {name: state for name, state in states(kind).items() if name not in BOOKKEEPING | {"Succeeded", "Failed"}}
        steps = [step for steps in WORKFLOW_STAGES[kind].values() for step in steps]
        assert list(WORKFLOW_STAGES[OperationKind.CREATE_CLUSTER][stage]) == steps
        record = f"{PIPELINE_BOOKKEEPING} {stage.title()}"
        assert pipeline[record]["Parameters"]["Payload"]["stage"] == stage
        for name, state in own.items():
            # The same state, except that the stage's end leads to its Record Stage Completed.
            ends = {"Next": record} if state.get("Next") == "Record Operation Success" else {}
            ends |= {"Default": record} if state.get("Default") == "Record Operation Success" else {}
            assert pipeline[name] == state | ends, name


def test_features_are_removed_and_ensured_in_the_panels_order():
    machine = states(OperationKind.UPDATE_CLUSTER_FEATURES)
    removals = [name for name in machine if name.startswith("Should Remove ")]
    ensures = [name for name in machine if name.startswith("Should Ensure ")]
    assert [machine[n]["Choices"][0]["Variable"].split(".")[2] for n in removals] == list(DISABLE_ORDER)
    assert [machine[n]["Choices"][0]["Or"][0]["Variable"].split(".")[2] for n in ensures] == list(ENABLE_ORDER)


@pytest.mark.parametrize("kind", list(OperationKind))
def test_waits_read_their_duration_from_state_so_tests_can_run_fast(kind):
    waits = [state for state in states(kind).values() if state["Type"] == "Wait"]
    assert all("SecondsPath" in wait and "Seconds" not in wait for wait in waits)


@pytest.mark.parametrize("kind", list(OperationKind))
def test_every_path_ends_by_recording_the_outcome(kind):
    machine = states(kind)
    assert machine["Record Operation Success"]["Next"] == "Succeeded"
    assert machine["Record Operation Failure"]["Next"] == "Failed"
    catches = {
        catch["Next"]
        for state in machine.values()
        for catch in state.get("Catch", [])
        if catch["ErrorEquals"] != ["States.Timeout"]  # an event wait's fallback: back to its check
    }
    assert catches == {"Record Operation Failure", "Failed"}


@pytest.mark.parametrize("kind", list(OperationKind), ids=lambda kind: kind.value)
def test_no_definition_names_a_partition_literally(kind):
    """GovCloud and China: every ARN in the ASL takes the partition the machine runs in (`${Partition}`)."""
    text = definition_text(kind)
    assert "arn:aws:" not in text
    assert "arn:${" + PARTITION + "}:states:::lambda:invoke" in text


def test_substitution_fills_the_partition_the_machine_runs_in():
    text = definition_text(OperationKind.REBOOT_NODES)
    functions = {p: f"arn:aws-cn:lambda:cn-north-1:123456789012:function:{p}" for p in placeholders(text)}
    resources = {
        state["Resource"]
        for state in json.loads(substitute(text, functions, "aws-cn"))["States"].values()
        if state["Type"] == "Task"
    }
    assert resources == {"arn:aws-cn:states:::lambda:invoke", "arn:aws-cn:states:::lambda:invoke.waitForTaskToken"}


def test_substitution_refuses_a_definition_with_a_placeholder_left_unfilled():
    text = definition_text(OperationKind.REBOOT_NODES)
    with pytest.raises(KeyError, match="FunctionArn"):
        substitute(text, {}, "aws")
