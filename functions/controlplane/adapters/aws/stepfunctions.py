"""Starts and stops the Step Functions workflows behind operations."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.models.operations import OperationKind


class StepFunctionsLauncher:
    def __init__(self, state_machine_arns: Mapping[str, str]) -> None:
        self._arns = state_machine_arns

    def start(self, kind: OperationKind, execution_name: str, payload: Mapping[str, Any]) -> str:
        arn = self._arns[kind.value]
        response = client("stepfunctions").start_execution(
            stateMachineArn=arn, name=execution_name, input=json.dumps(payload)
        )
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
