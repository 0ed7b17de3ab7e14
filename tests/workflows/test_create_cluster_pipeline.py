"""POST /clusters: every stage in one operation, the same end state as the stage-by-stage replay."""

from __future__ import annotations

from controlplane.core.stages import WORKFLOW_STAGES
from controlplane.models.operations import OperationKind
from tests.inventory import COMPLETE_STAGE1, stage1_inventory
from tests.workflows.faults import fail_each_step_in_turn
from tests.workflows.test_configure_storage import FSX_STEPS, fsx_inventory

BODY = {
    "region": "us-west-2",
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1},
    "storage": {},
}
# One representative step per pipeline stage (every step is covered by the stage workflows' own tests), and the
# FSx steps, which only a pipeline reaches in one operation.
FAULTS = ["create_eks_cluster", "check_addons", "create_hyperpod_cluster", "apply_storage_claim", *FSX_STEPS]


def end_state(running_sandbox, tag: str) -> dict:
    with running_sandbox.client("sandbox-viewer") as api:
        cluster = api.get(f"/clusters/{tag}").json()
        status = api.get(f"/clusters/{tag}/status").json()
    return {
        "stagesDone": cluster["stagesDone"],
        "status": cluster["status"],
        "ready": status["ready"],
        "nodesReady": status["nodesReady"],
        "gpus": status["gpusTotal"],
        "stage1": stage1_inventory(tag),
    }


EXPECTED = {
    "stagesDone": ["eks", "dependencies", "hyperpod", "storage"],
    "status": "ACTIVE",
    "ready": True,
    "nodesReady": 1,
    "gpus": 1,
    "stage1": {**COMPLETE_STAGE1, "subnets": 5},  # stage 1 plus the compute subnet
}


def test_one_request_builds_a_ready_cluster(running_sandbox):
    with running_sandbox.client() as api:
        plan = api.post("/clusters", params={"dryRun": "true"}, json={"clusterTag": "onego", **BODY})
        assert plan.status_code == 200, plan.text
        assert api.get("/clusters/onego").status_code == 404
        accepted = api.post("/clusters", json={"clusterTag": "onego", **BODY})
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["stages"] == list(WORKFLOW_STAGES[OperationKind.CREATE_CLUSTER])
    operation = running_sandbox.wait_terminal(accepted.json()["operationId"], limit_seconds=180)
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    assert end_state(running_sandbox, "onego") == EXPECTED


def test_invalid_parts_are_refused_before_anything_is_created(running_sandbox):
    bad = {**BODY, "hyperpod": {**BODY["hyperpod"], "instanceType": "ml.g6.99xlarge"}}
    with running_sandbox.client() as api:
        response = api.post("/clusters", json={"clusterTag": "onebad", **bad})
        assert response.status_code == 400
        assert "not offered" in response.json()["message"]
        assert api.get("/clusters/onebad").status_code == 404
    assert stage1_inventory("onebad")["vpcs"] == 0


def test_faults_in_turn_keep_finished_stages_and_resume_ends_in_the_same_state(running_sandbox):
    body = {"clusterTag": "onefaults", **BODY, "storage": {"fsx": {}}}

    def start() -> str:
        with running_sandbox.client() as api:
            return api.post("/clusters", json=body).json()["operationId"]

    def finished_stages_are_the_clusters(failed: dict) -> None:
        finished = [stage["name"] for stage in failed["stages"] if stage["status"] == "SUCCEEDED"]
        with running_sandbox.client("sandbox-viewer") as api:
            assert api.get("/clusters/onefaults").json()["stagesDone"] == finished

    fail_each_step_in_turn(
        running_sandbox,
        OperationKind.CREATE_CLUSTER,
        start,
        FAULTS,
        check=finished_stages_are_the_clusters,
        limit_seconds=180,
    )
    assert end_state(running_sandbox, "onefaults") == EXPECTED
    inventory = fsx_inventory(running_sandbox, "onefaults")
    assert [fs["Lifecycle"] for fs in inventory["file_systems"]] == ["AVAILABLE"]
    assert len(inventory["volumes"]) == 1
    assert inventory["claims"] == ["fsx-claim", "s3-claim"]
