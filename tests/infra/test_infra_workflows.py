"""The ASL files and the state machines the stack builds from them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, state_machine_name
from controlplane.models.operations import OperationKind
from controlplane.workflows import PARTITION, definition_text, placeholders, step_key, step_keys
from infra.access.steps import STEP_GROUPS, group_of


def machines(synth: Any) -> dict[str, dict[str, Any]]:
    """OperationKind value → the AWS::StepFunctions::StateMachine properties of its workflow."""
    by_name = {
        props["Properties"]["StateMachineName"]: props["Properties"]
        for props in synth.of_type("AWS::StepFunctions::StateMachine").values()
    }
    return {kind.value: by_name[state_machine_name(DEFAULT_DEPLOYMENT_NAME, kind)] for kind in OperationKind}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def tasks(kind: OperationKind) -> dict[str, dict[str, Any]]:
    states = json.loads(definition_text(kind))["States"]
    return {name: state for name, state in states.items() if state["Type"] == "Task"}


def test_one_state_machine_per_operation_kind(synth: Any) -> None:
    assert len(synth.of_type("AWS::StepFunctions::StateMachine")) == len(OperationKind)
    assert set(machines(synth)) == {kind.value for kind in OperationKind}


@pytest.mark.parametrize("kind", list(OperationKind), ids=lambda kind: kind.value)
def test_every_placeholder_is_substituted_with_its_step_function(synth: Any, kind: OperationKind) -> None:
    substitutions = machines(synth)[kind.value]["DefinitionSubstitutions"]
    text = definition_text(kind)
    assert set(substitutions) == placeholders(text)
    for placeholder, value in substitutions.items():
        expected = synth.step_function(group_of(step_key(placeholder)))
        assert value == {"Fn::GetAtt": [expected, "Arn"]}, placeholder
    # The definition is inlined (no asset), the file with the stack's partition for `${Partition}`, so CloudFormation
    # substitutes exactly these keys.
    delimiter, parts = machines(synth)[kind.value]["DefinitionString"]["Fn::Join"]
    partition = {"Ref": "AWS::Partition"}
    assert delimiter.join("${" + PARTITION + "}" if part == partition else part for part in parts) == text
    assert all(isinstance(part, str) or part == partition for part in parts)


@pytest.mark.parametrize("kind", list(OperationKind), ids=lambda kind: kind.value)
def test_every_task_retries_and_catches(kind: OperationKind) -> None:
    for name, state in tasks(kind).items():
        assert state.get("Retry"), f"{kind.value}: Task {name!r} has no Retry"
        assert state.get("Catch"), f"{kind.value}: Task {name!r} has no Catch"
        assert any("States.ALL" in catcher["ErrorEquals"] for catcher in state["Catch"]), name


@pytest.mark.parametrize("kind", list(OperationKind), ids=lambda kind: kind.value)
def test_state_machines_are_standard_logged_and_traced(synth: Any, kind: OperationKind) -> None:
    machine = machines(synth)[kind.value]
    assert machine["StateMachineType"] == "STANDARD"
    assert machine["TracingConfiguration"] == {"Enabled": True}
    logging = machine["LoggingConfiguration"]
    assert logging["Level"] == "ALL"
    (destination,) = logging["Destinations"]
    log_group = destination["CloudWatchLogsLogGroup"]["LogGroupArn"]["Fn::GetAtt"][0]
    assert synth.resources[log_group]["Properties"]["RetentionInDays"] > 0


@pytest.mark.parametrize("kind", list(OperationKind), ids=lambda kind: kind.value)
def test_state_machine_may_invoke_exactly_its_step_functions(synth: Any, kind: OperationKind) -> None:
    machine = machines(synth)[kind.value]
    role = machine["RoleArn"]["Fn::GetAtt"][0]
    invoke = [s for s in synth.statements(role) if s["Action"] == "lambda:InvokeFunction"]
    granted = [resource for s in invoke for resource in as_list(s["Resource"])]
    expected = {json.dumps(value, sort_keys=True) for value in machine["DefinitionSubstitutions"].values()}
    assert {json.dumps(r, sort_keys=True) for r in granted} == expected


def test_each_step_is_served_by_exactly_one_function_the_one_of_its_group(synth: Any) -> None:
    served_by: dict[str, set[str]] = {}
    for machine in machines(synth).values():
        for placeholder, value in machine["DefinitionSubstitutions"].items():
            served_by.setdefault(step_key(placeholder), set()).add(value["Fn::GetAtt"][0])
    assert sorted(served_by) == step_keys()
    assert all(len(functions) == 1 for functions in served_by.values()), served_by
    steps_of: dict[str, set[str]] = {}
    for step, (function,) in served_by.items():
        steps_of.setdefault(function, set()).add(step)
    assert steps_of == {synth.step_function(group): set(steps) for group, steps in STEP_GROUPS.items()}


def test_every_step_group_function_runs_the_one_step_handler(synth: Any) -> None:
    for group in STEP_GROUPS:
        props = synth.resources[synth.step_function(group)]["Properties"]
        assert props["Handler"] == "steps.handler.lambda_handler", group


def test_failure_recorder_may_read_the_history_of_both_workflows(synth: Any) -> None:
    function = synth.step_function(group_of("record_operation_failure"))
    statements = synth.statements(synth.role_of(function))
    (history,) = [s for s in statements if s["Action"] == "states:GetExecutionHistory"]
    rendered = json.dumps(history["Resource"])
    for kind in OperationKind:
        assert f":execution:{state_machine_name(DEFAULT_DEPLOYMENT_NAME, kind)}:*" in rendered
