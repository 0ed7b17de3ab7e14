"""The ASL files and the state machines the stack builds from them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controlplane.models.operations import OperationKind
from controlplane.workflows import definition_text, placeholders, step_key, step_keys
from infra.stack import STEP_HANDLER, state_machine_name


def machines(synth: Any) -> dict[str, dict[str, Any]]:
    """OperationKind value → the AWS::StepFunctions::StateMachine properties of its workflow."""
    by_name = {
        props["Properties"]["StateMachineName"]: props["Properties"]
        for props in synth.of_type("AWS::StepFunctions::StateMachine").values()
    }
    return {kind.value: by_name[state_machine_name(kind)] for kind in OperationKind}


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
    functions = synth.step_functions()
    for placeholder, value in substitutions.items():
        expected = functions[step_key(placeholder)]
        assert value == {"Fn::GetAtt": [expected, "Arn"]}, placeholder
        assert synth.resources[expected]["Properties"]["Handler"] == STEP_HANDLER, placeholder
    # The definition is inlined verbatim (no asset), so CloudFormation substitutes exactly these keys.
    assert machines(synth)[kind.value]["DefinitionString"] == text


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


def test_each_step_is_served_by_one_function_shared_by_the_workflows(synth: Any) -> None:
    served = synth.step_functions()
    assert sorted(served) == step_keys()
    functions = synth.of_type("AWS::Lambda::Function")
    step_functions = {key for key, props in functions.items() if props["Properties"]["Handler"] == STEP_HANDLER}
    assert set(served.values()) == step_functions


def test_failure_recorder_may_read_the_history_of_both_workflows(synth: Any) -> None:
    function = synth.step_functions()["record_operation_failure"]
    statements = synth.statements(synth.role_of(function))
    (history,) = [s for s in statements if s["Action"] == "states:GetExecutionHistory"]
    rendered = json.dumps(history["Resource"])
    for kind in OperationKind:
        assert f":execution:{state_machine_name(kind)}:*" in rendered
