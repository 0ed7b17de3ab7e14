"""A failure is recorded even when the execution state itself is what went wrong."""

from __future__ import annotations

from controlplane import wiring
from steps.handler import lambda_handler


def test_a_failure_with_an_unreadable_state_still_fails_the_operation(running_sandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "badstate", "region": "us-west-2"}).json()
    operation = wiring.operations().get(accepted["operationId"])
    state = {
        "operationId": operation.operationId,
        "kind": "no-such-workflow",
        "error": {"Error": "States.Runtime", "Cause": "The state does not match the workflow input."},
    }
    event = {"step": "Record Operation Failure", "state": state, "executionArn": operation.executionArn}
    result = lambda_handler(event, None)
    assert result["status"] == "FAILED"
    failed = running_sandbox.wait_terminal(operation.operationId)
    assert failed["status"] == "FAILED"
    assert failed["error"]["code"] == "States.Runtime"
    assert "does not match" in failed["error"]["message"]
