"""Deleting a cluster: plan, confirm, and nothing stage 1 created is left — even after a fault and a resume."""

from __future__ import annotations

import pytest

from controlplane.models.operations import OperationKind
from controlplane.workflows import definition_text, placeholders, step_key
from tests.inventory import COMPLETE_STAGE1, NOTHING, stage1_inventory
from tests.workflows.confirm import confirmed

DELETE_STEPS = sorted(
    step_key(p)
    for p in placeholders(definition_text(OperationKind.DELETE_EKS_CLUSTER))
    if not p.startswith("RecordOperation")
)


def create_cluster(running_sandbox, tag: str) -> None:
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": tag, "region": "us-west-2"}).json()
    assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
    assert stage1_inventory(tag) == COMPLETE_STAGE1


def confirmed_delete(running_sandbox, tag: str) -> dict:
    with running_sandbox.client() as api:
        started = confirmed(api, "DELETE", f"/clusters/{tag}")
    assert started.status_code == 202, started.text
    return started.json()


def test_plan_changes_nothing_and_confirmed_delete_leaves_nothing(running_sandbox):
    create_cluster(running_sandbox, "todelete")
    with running_sandbox.client() as api:
        plan = api.delete("/clusters/todelete").json()
    assert {action["resource"] for action in plan["actions"]} >= {"AWS::EKS::Cluster", "AWS::EC2::VPC"}
    assert stage1_inventory("todelete") == COMPLETE_STAGE1

    accepted = confirmed_delete(running_sandbox, "todelete")
    operation = running_sandbox.wait_terminal(accepted["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    assert stage1_inventory("todelete") == NOTHING
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get("/clusters/todelete").status_code == 404
        assert "todelete" not in [c["clusterTag"] for c in api.get("/clusters").json()["clusters"]]


def test_a_confirmation_token_works_once_and_only_for_its_cluster(running_sandbox):
    create_cluster(running_sandbox, "tokenonce")
    with running_sandbox.client() as api:
        token = api.delete("/clusters/tokenonce").json()["confirmationToken"]
        wrong = api.delete("/clusters/golden-x", params={"confirmationToken": token})
        assert wrong.status_code == 404
        bogus = api.delete("/clusters/tokenonce", params={"confirmationToken": "not-a-token"})
        assert bogus.status_code == 400
        assert bogus.json()["code"] == "ConfirmationRequired"
    assert stage1_inventory("tokenonce") == COMPLETE_STAGE1


@pytest.mark.parametrize("step", DELETE_STEPS)
def test_a_fault_in_any_delete_step_then_resume_leaves_nothing(running_sandbox, step):
    tag = "d-" + step.replace("_", "")[:18]
    create_cluster(running_sandbox, tag)
    running_sandbox.sandbox.add_fault(step, 1)
    accepted = confirmed_delete(running_sandbox, tag)
    failed = running_sandbox.wait_terminal(accepted["operationId"])
    assert failed["status"] == "FAILED"
    assert failed["error"]["step"].lower().replace(" ", "_") == step
    with running_sandbox.client() as api:  # resuming a delete asks for a fresh confirmation, as starting it did
        assert confirmed(api, "POST", f"/operations/{accepted['operationId']}/resume").status_code == 202
    done = running_sandbox.wait_terminal(accepted["operationId"])
    assert done["status"] == "SUCCEEDED", done.get("error")
    assert stage1_inventory(tag) == NOTHING
