"""Deleting a cluster: plan, confirm, and nothing stage 1 created is left — even after a fault and a resume."""

from __future__ import annotations

from controlplane.models.operations import OperationKind
from tests.inventory import COMPLETE_STAGE1, NOTHING, stage1_inventory
from tests.workflows.confirm import confirmed
from tests.workflows.faults import fail_each_step_in_turn


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


def test_every_delete_step_fails_once_in_turn_and_resume_leaves_nothing(running_sandbox):
    create_cluster(running_sandbox, "delfaults")
    fail_each_step_in_turn(
        running_sandbox,
        OperationKind.DELETE_EKS_CLUSTER,
        lambda: confirmed_delete(running_sandbox, "delfaults")["operationId"],
    )
    assert stage1_inventory("delfaults") == NOTHING
