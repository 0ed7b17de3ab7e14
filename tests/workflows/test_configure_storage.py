"""Stage 5 end to end: a data bucket mounted as s3-claim, the CSI role scoped to it; faults and resume."""

from __future__ import annotations

import boto3
import pytest

from controlplane.core.dependencies import S3_CSI_POLICY, s3_csi_role_name
from controlplane.models.operations import OperationKind
from controlplane.workflows import definition_text, placeholders, step_module

STEPS = sorted(
    step_module(p)
    for p in placeholders(definition_text(OperationKind.CONFIGURE_STORAGE))
    if not p.startswith("RecordOperation")
)


def ready_for_storage(running_sandbox, tag: str) -> None:
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": tag, "region": "us-west-2"}).json()
        assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
        accepted = api.post(f"/clusters/{tag}/dependencies").json()
        assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"


def storage_inventory(running_sandbox, tag: str) -> dict[str, object]:
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{tag}")
    claims = [c["metadata"]["name"] for c in store.list("", "v1", "persistentvolumeclaims", "default")]
    volumes = [v["spec"]["csi"]["volumeAttributes"]["bucketName"] for v in store.list("", "v1", "persistentvolumes")]
    buckets = [
        b["Name"] for b in boto3.client("s3").list_buckets()["Buckets"] if b["Name"].startswith(f"instantstart-{tag}-")
    ]
    return {"claims": claims, "volume_buckets": volumes, "data_buckets": buckets}


def test_storage_creates_a_bucket_and_the_s3_claim(running_sandbox):
    ready_for_storage(running_sandbox, "stor")
    with running_sandbox.client("sandbox-operator") as api:
        response = api.post("/clusters/stor/storage", json={})
        assert response.status_code == 202, response.text
        operation = running_sandbox.wait_terminal(response.json()["operationId"])
        assert operation["status"] == "SUCCEEDED", operation.get("error")
        cluster = api.get("/clusters/stor").json()
    bucket = "instantstart-stor-123456789012-us-west-2"
    assert storage_inventory(running_sandbox, "stor") == {
        "claims": ["s3-claim"],
        "volume_buckets": [bucket],
        "data_buckets": [bucket],
    }
    assert cluster["stagesDone"] == ["eks", "dependencies", "storage"]
    assert (cluster["storageBucket"], cluster["storageClaim"]) == (bucket, "default/s3-claim")
    policy = boto3.client("iam").get_role_policy(RoleName=s3_csi_role_name("stor"), PolicyName=S3_CSI_POLICY)
    assert f"arn:aws:s3:::{bucket}" in str(policy["PolicyDocument"])


def test_the_callers_bucket_is_mounted_and_never_created(running_sandbox):
    ready_for_storage(running_sandbox, "storown")
    boto3.client("s3", region_name="us-west-2").create_bucket(
        Bucket="team-datasets", CreateBucketConfiguration={"LocationConstraint": "us-west-2"}
    )
    with running_sandbox.client() as api:
        response = api.post("/clusters/storown/storage", json={"bucketName": "team-datasets", "claimName": "datasets"})
        assert running_sandbox.wait_terminal(response.json()["operationId"])["status"] == "SUCCEEDED"
    assert storage_inventory(running_sandbox, "storown") == {
        "claims": ["datasets"],
        "volume_buckets": ["team-datasets"],
        "data_buckets": [],
    }


def test_storage_with_a_missing_bucket_fails_and_names_it(running_sandbox):
    ready_for_storage(running_sandbox, "stormiss")
    with running_sandbox.client() as api:
        response = api.post("/clusters/stormiss/storage", json={"bucketName": "no-such-bucket-here"})
        operation = running_sandbox.wait_terminal(response.json()["operationId"])
    assert operation["status"] == "FAILED"
    assert "no-such-bucket-here" in operation["error"]["message"]
    assert storage_inventory(running_sandbox, "stormiss")["claims"] == []


def test_a_viewer_cannot_configure_storage(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.post("/clusters/stor/storage", json={}).status_code == 403


@pytest.mark.parametrize("step", STEPS)
def test_a_fault_in_any_storage_step_then_resume_mounts_once(running_sandbox, step):
    tag = "s-" + step.replace("_", "")[:18]
    ready_for_storage(running_sandbox, tag)
    running_sandbox.sandbox.add_fault(step, 1)
    with running_sandbox.client() as api:
        accepted = api.post(f"/clusters/{tag}/storage", json={}).json()
        assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "FAILED"
        assert api.post(f"/operations/{accepted['operationId']}/resume").status_code == 202
    assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
    inventory = storage_inventory(running_sandbox, tag)
    assert inventory["claims"] == ["s3-claim"]
    assert len(inventory["data_buckets"]) == 1
