"""Downloads in the stack: their state machine, and a step role that reaches Kubernetes and nothing else (the token
is in a Kubernetes Secret, so no role reads a secret store); the API lists the claim only in this account."""

from __future__ import annotations

from typing import Any

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, state_machine_name
from controlplane.models.operations import OperationKind
from infra.stack import API_HANDLER


def actions(statements: list[dict[str, Any]]) -> set[str]:
    return {action for s in statements for action in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}


def test_the_download_workflow_has_its_state_machine(synth: Any) -> None:
    names = [p["Properties"]["StateMachineName"] for p in synth.of_type("AWS::StepFunctions::StateMachine").values()]
    assert state_machine_name(DEFAULT_DEPLOYMENT_NAME, OperationKind.DOWNLOAD_TO_STORAGE) in names


def test_the_download_steps_describe_the_cluster_and_assume_the_kubernetes_role_only(synth: Any) -> None:
    statements = synth.statements(synth.role_of(synth.step_function("downloads")))
    granted = {a for a in actions(statements) if not a.startswith(("logs:", "xray:", "dynamodb:"))}
    assert granted == {"eks:DescribeCluster", "sts:AssumeRole"}


def test_the_api_lists_buckets_of_this_account_only(synth: Any) -> None:
    statements = synth.statements(synth.role_of(synth.functions_by_handler()[API_HANDLER]))
    (listing,) = [
        s
        for s in statements
        if s["Action"] == "s3:ListBucket" and "arn:" in str(s["Resource"]) and ":::*" in str(s["Resource"])
    ]
    assert "s3:ResourceAccount" in str(listing["Condition"])
