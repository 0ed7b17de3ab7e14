"""The cluster lock, CIDR reservation and confirmation tokens in the sandbox, as issue 11 reproduced them (items
1, 2, 3 and 6).

The races call the control plane's services in the sandbox's process (real DynamoDB adapters on moto, real
workflows): the sandbox serves every HTTP request from one Powertools resolver, whose per-request context is not
safe for concurrent requests, so parallel HTTP requests would race in the sandbox rather than in the control plane.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from controlplane import wiring
from controlplane.adapters.aws.dynamo.operations import DynamoOperationRepository
from controlplane.core.auth import Actor, Role
from controlplane.models.clusters import CreateEksClusterRequest
from controlplane.models.errors import ConflictError

REGION = "us-west-2"
ADMIN = Actor("sandbox-admin", Role.ADMIN)


def test_six_parallel_creates_without_a_cidr_get_six_different_cidrs(running_sandbox):
    tags = [f"cidr-{index}" for index in range(6)]

    def create(tag: str) -> str:
        request = CreateEksClusterRequest(clusterTag=tag, region=REGION)
        return wiring.cluster_lifecycle().create_eks(request, ADMIN).operationId

    with ThreadPoolExecutor(max_workers=6) as pool:
        accepted = list(pool.map(create, tags))
    with running_sandbox.client("sandbox-viewer") as api:
        cidrs = {api.get(f"/clusters/{tag}").json()["vpcCidr"] for tag in tags}
    assert len(cidrs) == 6
    for operation_id in accepted:
        assert running_sandbox.wait_terminal(operation_id)["status"] == "SUCCEEDED"


def test_concurrent_resumes_leave_the_lock_with_the_running_operation_every_time(running_sandbox):
    running_sandbox.sandbox.add_fault("Ensure Cluster Role", 1)
    with running_sandbox.client() as api:
        operation_id = api.post("/clusters/eks", json={"clusterTag": "resumes", "region": REGION}).json()["operationId"]
    assert running_sandbox.wait_terminal(operation_id)["status"] == "FAILED"

    def resume(_: int) -> bool:
        try:
            wiring.operations().resume(operation_id, ADMIN)
        except ConflictError:
            return False
        return True

    for round_ in range(10):
        last = round_ == 9
        if not last:
            running_sandbox.sandbox.add_fault("Ensure Cluster Role", 1)
        with ThreadPoolExecutor(max_workers=20) as pool:
            outcomes = list(pool.map(resume, range(20)))
        assert outcomes.count(True) == 1, outcomes
        with running_sandbox.client("sandbox-viewer") as api:
            holder = api.get("/clusters/resumes").json().get("activeOperationId")
            status = api.get(f"/operations/{operation_id}").json()["status"]
        # The lock is released only after the operation ends: read in this order, a free lock means it had ended.
        assert holder == operation_id or status in ("SUCCEEDED", "FAILED"), (round_, holder, status)
        expected = "SUCCEEDED" if last else "FAILED"
        assert running_sandbox.wait_terminal(operation_id)["status"] == expected
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get("/clusters/resumes").json().get("activeOperationId") is None


def test_a_delete_whose_operation_record_cannot_be_written_leaves_the_cluster_and_the_token_usable(
    running_sandbox, monkeypatch
):
    with running_sandbox.client() as api:
        created = api.post("/clusters/eks", json={"clusterTag": "recwrite", "region": REGION}).json()
    assert running_sandbox.wait_terminal(created["operationId"])["status"] == "SUCCEEDED"
    original = DynamoOperationRepository.create

    def broken_write(self, operation):
        monkeypatch.setattr(DynamoOperationRepository, "create", original)
        raise UnicodeEncodeError("utf-8", "\ud800x", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(DynamoOperationRepository, "create", broken_write)
    with running_sandbox.client() as api:
        token = api.delete("/clusters/recwrite").json()["confirmationToken"]
        assert api.delete("/clusters/recwrite", params={"confirmationToken": token}).status_code == 500
        assert api.get("/clusters/recwrite").json().get("activeOperationId") is None
        accepted = api.delete("/clusters/recwrite", params={"confirmationToken": token})
        assert accepted.status_code == 202, accepted.text
    assert running_sandbox.wait_terminal(accepted.json()["operationId"])["status"] == "SUCCEEDED"


def test_a_cancelled_create_does_not_leave_the_cluster_creating(running_sandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "cancelled", "region": REGION}).json()
        assert api.post(f"/operations/{accepted['operationId']}/cancel").status_code == 200
        cluster = api.get("/clusters/cancelled").json()
    assert cluster["status"] != "CREATING"
    assert cluster.get("activeOperationId") is None


@pytest.mark.parametrize("role", ["sandbox-operator", "sandbox-viewer"])
def test_a_plan_for_fsx_storage_needs_the_role_the_real_call_needs(running_sandbox, role):
    body = {"fsx": {"storageCapacityGiB": 1200, "deploymentType": "SCRATCH_2"}}
    with running_sandbox.client(role) as api:
        response = api.post("/clusters/anything/storage", params={"dryRun": "true"}, json=body)
    assert response.status_code == 403, response.text
