"""Starts and stops the Step Functions workflows behind operations."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.models.errors import WorkflowStartRefusedError
from controlplane.models.operations import OperationKind

# StartExecution's refusals that pass with time (botocore's error shapes, and throttling, which botocore's retries
# give up on): the open executions of the account and Region at their limit, or calls over their rate.
REFUSALS_FOR_NOW = ("ExecutionLimitExceeded", "ThrottlingException", "KmsThrottlingException")


class StepFunctionsLauncher:
    def __init__(self, state_machine_arns: Mapping[str, str]) -> None:
        self._arns = state_machine_arns

    def start(self, kind: OperationKind, execution_name: str, payload: Mapping[str, Any]) -> str:
        arn = self._arns[kind.value]
        try:
            response = client("stepfunctions").start_execution(
                stateMachineArn=arn, name=execution_name, input=json.dumps(payload)
            )
        except ClientError as error:
            code = error_code(error)
            if code not in REFUSALS_FOR_NOW:
                raise
            raise WorkflowStartRefusedError(
                f"Step Functions refused to start the {kind.value} workflow for now ({code}).", {"refusal": code}
            ) from error
        return str(response["executionArn"])

    def stop(self, execution_arn: str, cause: str) -> None:
        try:
            client("stepfunctions").stop_execution(executionArn=execution_arn, cause=cause[:256])
        except ClientError as error:
            if error_code(error) not in ("ExecutionDoesNotExist", "ValidationException"):
                raise

    def failed_state(self, execution_arn: str) -> str | None:
        """Name of the state whose task failed most recently in an execution (read from its history)."""
        paginator = client("stepfunctions").get_paginator("get_execution_history")
        entered: str | None = None
        failed: str | None = None
        for page in paginator.paginate(executionArn=execution_arn):
            for event in page["events"]:
                details = event.get("stateEnteredEventDetails")
                if details:
                    entered = details["name"]
                if event["type"] in ("TaskFailed", "LambdaFunctionFailed", "TaskTimedOut", "LambdaFunctionTimedOut"):
                    failed = entered
        return failed
