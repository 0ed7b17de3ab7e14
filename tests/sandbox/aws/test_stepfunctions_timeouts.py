"""A Task's `TimeoutSecondsPath` must select a positive integer, as on AWS: anything else fails the execution with
`States.Runtime` instead of timing the task out before it starts (which left moto's history unreadable)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from sandbox.aws.stepfunctions import StepFunctionsExtension

REGION = "us-east-1"
ROLE = "arn:aws:iam::123456789012:role/workflow"


@pytest.fixture
def stepfunctions() -> Iterator[Any]:
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        extension = StepFunctionsExtension()
        extension.install()
        try:
            yield boto3.client("stepfunctions", region_name=REGION)
        finally:
            extension.uninstall()


def run(stepfunctions: Any, seconds: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run a Task (an AWS SDK call) timed out after `$.seconds`; how the execution ended and its history."""
    task = {
        "Type": "Task",
        "Resource": "arn:aws:states:::aws-sdk:sfn:listActivities",
        "Parameters": {},
        "TimeoutSecondsPath": "$.seconds",
        "End": True,
    }
    definition = {"StartAt": "Work", "States": {"Work": task}}
    machine = stepfunctions.create_state_machine(name="timed", definition=json.dumps(definition), roleArn=ROLE)
    execution = stepfunctions.start_execution(
        stateMachineArn=machine["stateMachineArn"], input=json.dumps({"seconds": seconds})
    )["executionArn"]
    deadline = time.monotonic() + 10
    while (described := stepfunctions.describe_execution(executionArn=execution))["status"] == "RUNNING":
        assert time.monotonic() < deadline, "the execution did not end"
        time.sleep(0.05)
    return described, stepfunctions.get_execution_history(executionArn=execution)["events"]


@pytest.mark.parametrize("seconds", [0, -5, 2.5])
def test_a_timeout_path_that_selects_no_positive_integer_fails_the_execution(stepfunctions, seconds):
    described, history = run(stepfunctions, seconds)
    assert (described["status"], described["error"]) == ("FAILED", "States.Runtime")
    assert "'TimeoutSecondsPath' ($.seconds) must be a positive integer" in described["cause"]
    assert not [event for event in history if event["type"] == "TaskScheduled"]


def test_a_positive_timeout_path_is_the_scheduled_task_s_timeout(stepfunctions):
    described, history = run(stepfunctions, 1)
    assert described["status"] == "SUCCEEDED"
    (scheduled,) = [event for event in history if event["type"] == "TaskScheduled"]
    assert scheduled["taskScheduledEventDetails"]["timeoutInSeconds"] == 1
