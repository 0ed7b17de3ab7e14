"""The workflow building blocks: what a declaration generates and which stage each step reports."""

from __future__ import annotations

import pytest

from controlplane.models.operations import OperationKind
from controlplane.workflows.asl import RETRY, definition
from controlplane.workflows.spec import Branch, Poll, Stage, Task, Workflow, is_present, string_equals

KIND = OperationKind.CREATE_EKS_CLUSTER


def workflow(*body) -> Workflow:
    return Workflow(KIND, "A test workflow.", *body)


def test_tasks_run_in_order_and_the_last_records_success():
    states = definition(workflow(Task("Ensure VPC"), Task("Ensure Subnets")))["States"]
    assert definition(workflow(Task("Ensure VPC")))["StartAt"] == "Ensure VPC"
    assert states["Ensure VPC"]["Next"] == "Ensure Subnets"
    assert states["Ensure Subnets"]["Next"] == "Record Operation Success"
    assert list(states)[-4:] == ["Record Operation Success", "Succeeded", "Record Operation Failure", "Failed"]


def test_every_task_sends_the_same_payload_retries_by_default_and_fails_into_the_recorder():
    states = definition(workflow(Task("Ensure VPC")))["States"]
    vpc = states["Ensure VPC"]
    assert vpc["Parameters"] == {
        "FunctionName": "${EnsureVpcFunctionArn}",
        "Payload": {"step": "Ensure VPC", "state.$": "$", "executionArn.$": "$$.Execution.Id"},
    }
    assert vpc["Retry"] == list(RETRY) and vpc["ResultPath"] is None
    assert vpc["Catch"] == [
        {"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Record Operation Failure"}
    ]
    # The recorder's own failure ends the execution instead of looping back into itself.
    assert states["Record Operation Failure"]["Catch"][0]["Next"] == "Failed"


def test_a_task_named_apart_from_its_step_sends_its_constants_to_that_step():
    task = Task("Record Stage Completed", name="Record Stage Completed Eks", constants={"stage": "eks"})
    state = definition(workflow(task))["States"]["Record Stage Completed Eks"]
    assert state["Parameters"]["FunctionName"] == "${RecordStageCompletedFunctionArn}"
    assert state["Parameters"]["Payload"]["step"] == "Record Stage Completed"
    assert state["Parameters"]["Payload"]["stage"] == "eks"


def test_a_poll_loop_checks_waits_from_state_and_clears_its_counter_when_done():
    poll = Poll("Check EKS Cluster", "Is EKS Cluster Active", "Wait For EKS Cluster")
    states = definition(workflow(poll, Task("Ensure Access Entry")))["States"]
    check, choice, wait, done = (states[name] for name in list(states)[:4])
    assert check["ResultPath"] == "$.poll" and check["ResultSelector"]["done.$"] == "$.Payload.done"
    assert check["Next"] == "Is EKS Cluster Active"
    assert choice["Choices"] == [{"Variable": "$.poll.done", "BooleanEquals": True, "Next": "Check EKS Cluster Done"}]
    assert choice["Default"] == "Wait For EKS Cluster"
    assert wait == {"Type": "Wait", "SecondsPath": "$.poll.waitSeconds", "Next": "Check EKS Cluster"}
    assert done["Type"] == "Pass" and done["Result"] is None and done["ResultPath"] == "$.poll"
    assert done["Next"] == "Ensure Access Entry"


def test_a_branch_runs_its_segment_only_when_its_rule_holds_and_otherwise_skips_it():
    branch = Branch("Is FSx Requested", is_present("$.storage.fsx"), "Only with fsx.", Task("Create FSx File System"))
    states = definition(workflow(Task("Apply Storage Claim"), branch, Task("Grant Bucket Access")))["States"]
    assert states["Apply Storage Claim"]["Next"] == "Is FSx Requested"
    assert states["Is FSx Requested"]["Choices"] == [
        {"Variable": "$.storage.fsx", "IsPresent": True, "Next": "Create FSx File System"}
    ]
    assert states["Is FSx Requested"]["Default"] == "Grant Bucket Access"
    assert states["Create FSx File System"]["Next"] == "Grant Bucket Access"


def test_a_rule_on_several_values_matches_any_of_them():
    assert string_equals("$.change", "disable") == {"Variable": "$.change", "StringEquals": "disable"}
    assert string_equals("$.change", "enable", "update") == {
        "Or": [{"Variable": "$.change", "StringEquals": "enable"}, {"Variable": "$.change", "StringEquals": "update"}]
    }


def test_a_state_declared_twice_is_refused():
    with pytest.raises(ValueError, match="'Ensure VPC' is declared twice"):
        definition(workflow(Task("Ensure VPC"), Task("Ensure VPC")))


def test_stages_list_their_steps_in_order_and_steps_outside_every_stage_report_none():
    declared = workflow(
        Stage("network", Task("Ensure VPC"), Poll("Release NAT Gateway", "Is Released", "Wait For Release")),
        Task("Record Stage Completed", name="Record Stage Completed Network", constants={"stage": "network"}),
        Stage("iam", Branch("Is Wanted", is_present("$.x"), "Only with x.", Task("Ensure Cluster Role"))),
    )
    assert declared.stages() == {"network": ("Ensure VPC", "Release NAT Gateway"), "iam": ("Ensure Cluster Role",)}
    assert [stage for stage, _ in declared.tasks()] == ["network", "network", None, "iam"]


def test_the_outermost_stage_wins_and_a_stage_reached_twice_keeps_its_first_place():
    inner = workflow(Stage("network", Task("Ensure VPC")), Stage("iam", Task("Ensure Cluster Role")))
    outer = workflow(
        Stage("karpenter", Task("Remove Karpenter")),
        Stage("eks", *inner.body),
        Stage("karpenter", Task("Ensure Karpenter")),
    )
    assert outer.stages() == {
        "karpenter": ("Remove Karpenter", "Ensure Karpenter"),
        "eks": ("Ensure VPC", "Ensure Cluster Role"),
    }
