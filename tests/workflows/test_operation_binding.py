"""An operation acts only on what it was planned for (issue 29, findings 1-3), reproduced as the issue describes them:
an operation is bound to the cluster incarnation it was created for, a resume runs the checks a new request runs, and
a delete token confirms only the plan it came with."""

from __future__ import annotations

import pytest

from controlplane.adapters.aws.dynamo.operations import DynamoOperationRepository
from controlplane.adapters.aws.stepfunctions import StepFunctionsLauncher
from controlplane.core.naming import execution_name
from controlplane.core.operations import transitions
from controlplane.settings import settings
from tests.conftest import aws_client
from tests.inventory import COMPLETE_STAGE1, stage1_inventory
from tests.workflows.confirm import confirmed

REGION = "us-west-2"
# The cluster whose first incarnation's delete failed, then was deleted and created again (finding 1).
REPLACED = "dzz"


def succeeded(running_sandbox, method: str, path: str, body: dict | None = None) -> dict:
    with running_sandbox.client() as api:
        accepted = api.request(method, path, json=body)
    assert accepted.status_code == 202, accepted.text
    operation = running_sandbox.wait_terminal(accepted.json()["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    return operation


def create_eks(running_sandbox, tag: str) -> dict:
    return succeeded(running_sandbox, "POST", "/clusters/eks", {"clusterTag": tag, "region": REGION})


def delete(running_sandbox, tag: str) -> dict:
    with running_sandbox.client() as api:
        started = confirmed(api, "DELETE", f"/clusters/{tag}")
    assert started.status_code == 202, started.text
    return running_sandbox.wait_terminal(started.json()["operationId"])


def cluster(running_sandbox, tag: str) -> dict:
    with running_sandbox.client("sandbox-viewer") as api:
        return api.get(f"/clusters/{tag}").json()


def data_buckets(tag: str) -> list[str]:
    return [
        b["Name"] for b in aws_client("s3").list_buckets()["Buckets"] if b["Name"].startswith(f"instantstart-{tag}-")
    ]


def failed_then_replaced(running_sandbox, tag: str) -> tuple[str, str]:
    """Finding 1's story up to the resume: a delete that failed at Delete Network, a second one that succeeded, the
    cluster created again under the same tag. The failed delete's id and the new cluster's incarnation."""
    create_eks(running_sandbox, tag)
    running_sandbox.sandbox.add_fault("delete_network", 1)
    first = delete(running_sandbox, tag)
    assert first["status"] == "FAILED"
    assert delete(running_sandbox, tag)["status"] == "SUCCEEDED"
    create_eks(running_sandbox, tag)
    return first["operationId"], cluster(running_sandbox, tag)["incarnation"]


@pytest.fixture(scope="module")
def replaced(running_sandbox) -> tuple[str, str]:
    """Finding 1's story, told once for the module: neither test acts on the new cluster (each asserts as much)."""
    return failed_then_replaced(running_sandbox, REPLACED)


def test_a_resumed_old_delete_is_refused_and_leaves_the_new_cluster_with_the_same_tag(running_sandbox, replaced):
    old_delete, incarnation = replaced
    with running_sandbox.client() as api:
        resumed = api.post(f"/operations/{old_delete}/resume")
        planned = api.post(f"/operations/{old_delete}/resume", params={"dryRun": "true"})
    assert resumed.status_code == 409, resumed.text
    refusal = resumed.json()
    assert refusal["code"] == "StaleOperation"
    assert refusal["details"]["clusterIncarnation"] == incarnation
    assert refusal["details"]["operationIncarnation"] != incarnation
    assert refusal["details"]["operationIncarnation"] in refusal["message"] and incarnation in refusal["message"]
    assert "new request" in refusal["message"]
    assert planned.status_code == 409 and planned.json()["code"] == "StaleOperation"
    assert stage1_inventory(REPLACED) == COMPLETE_STAGE1
    after = cluster(running_sandbox, REPLACED)
    assert (after["status"], after.get("activeOperationId")) == ("ACTIVE", None)


def test_an_old_operation_run_anyway_fails_at_its_first_step_without_acting(running_sandbox, replaced):
    """What a resume that skipped the checks would run: its steps refuse, the failure is recorded on the old
    operation, and neither the new cluster nor its record is touched."""
    old_delete, incarnation = replaced
    before = cluster(running_sandbox, REPLACED)
    repository = DynamoOperationRepository(table=settings().operations_table)
    operation = repository.find(old_delete)
    rerun = repository.replace(transitions.rerun(operation, "sandbox-admin", operation.updatedAt), operation.version)
    StepFunctionsLauncher(state_machine_arns=settings().state_machine_arns).start(
        rerun.kind, execution_name(rerun.operationId, rerun.attempt), rerun.input
    )
    ended = running_sandbox.wait_terminal(old_delete)
    assert ended["status"] == "FAILED"
    assert ended["error"]["code"] == "StaleOperationError"
    assert ended["error"]["step"] == "Delete HyperPod Cluster"
    assert incarnation in ended["error"]["message"]
    assert stage1_inventory(REPLACED) == COMPLETE_STAGE1
    after = cluster(running_sandbox, REPLACED)
    assert {key: after.get(key) for key in ("status", "activeOperationId", "lastOperationId", "incarnation")} == {
        key: before.get(key) for key in ("status", "activeOperationId", "lastOperationId", "incarnation")
    }


def test_resuming_a_delete_of_the_same_cluster_needs_a_fresh_confirmation(running_sandbox):
    create_eks(running_sandbox, "dzr")
    running_sandbox.sandbox.add_fault("delete_network", 1)
    failed = delete(running_sandbox, "dzr")
    assert failed["status"] == "FAILED"
    path = f"/operations/{failed['operationId']}/resume"
    with running_sandbox.client() as api:
        plan = api.post(path)
        assert plan.status_code == 200, plan.text
        assert plan.json()["confirmationToken"]
        assert {action["resource"] for action in plan.json()["actions"]} >= {"AWS::EC2::VPC"}
        assert api.get(f"/operations/{failed['operationId']}").json()["status"] == "FAILED"
        refused = api.post(path, params={"confirmationToken": "not-a-token"})
        assert refused.status_code == 400 and refused.json()["code"] == "ConfirmationRequired"
        accepted = api.post(path, params={"confirmationToken": plan.json()["confirmationToken"]})
    assert accepted.status_code == 202, accepted.text
    assert running_sandbox.wait_terminal(failed["operationId"])["status"] == "SUCCEEDED"
    assert cluster(running_sandbox, "dzr").get("code") == "ClusterNotFound"


def test_a_stale_storage_operation_is_refused_and_the_new_cluster_stays_free(running_sandbox):
    """Finding 2: fail a storage operation, delete and recreate the cluster (stage 1 only), resume the old one."""
    create_eks(running_sandbox, "stz")
    succeeded(running_sandbox, "POST", "/clusters/stz/dependencies")
    running_sandbox.sandbox.add_fault("ensure_data_bucket", 1)
    with running_sandbox.client() as api:
        storage = api.post("/clusters/stz/storage", json={}).json()["operationId"]
    assert running_sandbox.wait_terminal(storage)["status"] == "FAILED"
    assert delete(running_sandbox, "stz")["status"] == "SUCCEEDED"
    create_eks(running_sandbox, "stz")
    with running_sandbox.client() as api:
        resumed = api.post(f"/operations/{storage}/resume")
    assert resumed.status_code == 409, resumed.text
    assert resumed.json()["code"] == "StaleOperation"
    assert data_buckets("stz") == []
    assert cluster(running_sandbox, "stz").get("activeOperationId") is None
    succeeded(running_sandbox, "POST", "/clusters/stz/dependencies")


def test_resume_runs_the_stage_checks_a_new_request_runs(running_sandbox):
    """A storage operation of the same cluster, resumed after a delete failed half-way: the cluster is no longer
    ready for storage, so the resume is refused as a new storage request is, and nothing is created."""
    create_eks(running_sandbox, "sty")
    succeeded(running_sandbox, "POST", "/clusters/sty/dependencies")
    running_sandbox.sandbox.add_fault("ensure_data_bucket", 1)
    with running_sandbox.client() as api:
        storage = api.post("/clusters/sty/storage", json={}).json()["operationId"]
    assert running_sandbox.wait_terminal(storage)["status"] == "FAILED"
    running_sandbox.sandbox.add_fault("delete_network", 1)
    assert delete(running_sandbox, "sty")["status"] == "FAILED"
    with running_sandbox.client() as api:
        new_request = api.post("/clusters/sty/storage", json={})
        resumed = api.post(f"/operations/{storage}/resume")
    assert new_request.status_code == 409 and new_request.json()["code"] == "ClusterNotReady"
    assert resumed.status_code == 409, resumed.text
    assert resumed.json()["code"] == "ClusterNotReady"
    assert data_buckets("sty") == []
    assert cluster(running_sandbox, "sty").get("activeOperationId") is None


def test_resuming_an_operation_of_a_deleted_cluster_says_the_cluster_is_gone(running_sandbox):
    create_eks(running_sandbox, "gone")
    running_sandbox.sandbox.add_fault("ensure_oidc_provider", 1)
    with running_sandbox.client() as api:
        dependencies = api.post("/clusters/gone/dependencies").json()["operationId"]
    assert running_sandbox.wait_terminal(dependencies)["status"] == "FAILED"
    assert delete(running_sandbox, "gone")["status"] == "SUCCEEDED"
    with running_sandbox.client() as api:
        resumed = api.post(f"/operations/{dependencies}/resume")
    assert resumed.status_code == 409, resumed.text
    refusal = resumed.json()
    assert refusal["code"] == "StaleOperation"
    assert "no longer exists" in refusal["message"]
    assert "None" not in refusal["message"]
    assert refusal["details"]["clusterIncarnation"] is None


def test_a_delete_plan_made_before_the_cluster_was_finished_does_not_delete_the_finished_cluster(running_sandbox):
    """Finding 3: the plan (and its token) was made while stage 1 had not finished; once it has, the token confirms
    nothing and a new plan is needed."""
    running_sandbox.sandbox.add_fault("verify_kubernetes_api", 1)
    with running_sandbox.client() as api:
        create = api.post("/clusters/eks", json={"clusterTag": "tok3", "region": REGION}).json()["operationId"]
    assert running_sandbox.wait_terminal(create)["status"] == "FAILED"
    with running_sandbox.client() as api:
        early = api.delete("/clusters/tok3").json()
        assert api.post(f"/operations/{create}/resume").status_code == 202
        assert running_sandbox.wait_terminal(create)["status"] == "SUCCEEDED"
        late = api.delete("/clusters/tok3", params={"confirmationToken": early["confirmationToken"]})
        assert late.status_code == 400, late.text
        assert late.json()["code"] == "ConfirmationRequired"
        assert "changed" in late.json()["message"]
    assert cluster(running_sandbox, "tok3")["status"] == "ACTIVE"
    assert stage1_inventory("tok3") == COMPLETE_STAGE1
