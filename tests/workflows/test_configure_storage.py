"""Stage 5 end to end: a data bucket mounted as s3-claim, the CSI role scoped to it; faults and resume."""

from __future__ import annotations

import pytest

from controlplane.core.naming import S3_CSI_POLICY_NAME, s3_csi_role_name
from controlplane.models.operations import OperationKind
from tests.conftest import aws_client
from tests.fakes.deployment import DEPLOYMENT
from tests.workflows.confirm import confirmed
from tests.workflows.faults import fail_each_step_in_turn, steps_of

# The FSx steps fail in turn in the pipeline (tests/workflows/test_create_cluster_pipeline.py): FSx needs the
# HyperPod stage, which the pipeline builds in the same operation.
FSX_STEPS = [step for step in steps_of(OperationKind.CONFIGURE_STORAGE) if "fsx" in step]


def storage_inventory(running_sandbox, tag: str) -> dict[str, object]:
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{tag}")
    claims = [c["metadata"]["name"] for c in store.list("", "v1", "persistentvolumeclaims", "default")]
    volumes = [v["spec"]["csi"]["volumeAttributes"]["bucketName"] for v in store.list("", "v1", "persistentvolumes")]
    buckets = [
        b["Name"] for b in aws_client("s3").list_buckets()["Buckets"] if b["Name"].startswith(f"instantstart-{tag}-")
    ]
    return {"claims": claims, "volume_buckets": volumes, "data_buckets": buckets}


def test_storage_creates_a_bucket_and_the_s3_claim(running_sandbox):
    running_sandbox.build_cluster("stor", hyperpod=False)
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
    policy = aws_client("iam").get_role_policy(
        RoleName=s3_csi_role_name(DEPLOYMENT, "stor"), PolicyName=S3_CSI_POLICY_NAME
    )
    assert f"arn:aws:s3:::{bucket}" in str(policy["PolicyDocument"])


def test_the_callers_bucket_is_mounted_and_never_created(running_sandbox):
    running_sandbox.build_cluster("storown", hyperpod=False)
    aws_client("s3", region_name="us-west-2").create_bucket(
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
    running_sandbox.build_cluster("stormiss", hyperpod=False)
    with running_sandbox.client() as api:
        response = api.post("/clusters/stormiss/storage", json={"bucketName": "no-such-bucket-here"})
        operation = running_sandbox.wait_terminal(response.json()["operationId"])
    assert operation["status"] == "FAILED"
    assert "no-such-bucket-here" in operation["error"]["message"]
    assert storage_inventory(running_sandbox, "stormiss")["claims"] == []


def test_a_viewer_cannot_configure_storage(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.post("/clusters/stor/storage", json={}).status_code == 403


def test_every_storage_step_fails_once_in_turn_and_resume_mounts_once(running_sandbox):
    running_sandbox.build_cluster("storfaults", hyperpod=False)

    def start() -> str:
        with running_sandbox.client() as api:
            return api.post("/clusters/storfaults/storage", json={}).json()["operationId"]

    steps = [step for step in steps_of(OperationKind.CONFIGURE_STORAGE) if step not in FSX_STEPS]
    fail_each_step_in_turn(running_sandbox, OperationKind.CONFIGURE_STORAGE, start, steps)
    inventory = storage_inventory(running_sandbox, "storfaults")
    assert inventory["claims"] == ["s3-claim"]
    assert len(inventory["data_buckets"]) == 1


# --- FSx for Lustre ------------------------------------------------------------------------------

PIPELINE = {
    "region": "us-west-2",
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1},
}


def fsx_inventory(running_sandbox, tag: str) -> dict[str, object]:
    """The cluster's Lustre file systems (with where they are) and the FSx volumes and claims in Kubernetes."""
    file_systems = [
        fs
        for fs in aws_client("fsx", region_name="us-west-2").describe_file_systems()["FileSystems"]
        if {"Key": "instantstart:cluster", "Value": tag} in fs.get("Tags", [])
    ]
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{tag}")
    volumes = [v for v in store.list("", "v1", "persistentvolumes") if v["spec"]["csi"]["driver"] == "fsx.csi.aws.com"]
    claims = [c["metadata"]["name"] for c in store.list("", "v1", "persistentvolumeclaims", "default")]
    return {"file_systems": file_systems, "volumes": volumes, "claims": sorted(claims)}


def create_pipeline(running_sandbox, tag: str, fsx: dict) -> dict:
    with running_sandbox.client() as api:
        accepted = api.post("/clusters", json={"clusterTag": tag, **PIPELINE, "storage": {"fsx": fsx}})
    assert accepted.status_code == 202, accepted.text
    return running_sandbox.wait_terminal(accepted.json()["operationId"], limit_seconds=180)


def test_fsx_creates_a_lustre_file_system_in_the_compute_subnet_and_a_static_claim(running_sandbox):
    fsx = {"storageCapacityGiB": 2400, "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 250}
    operation = create_pipeline(running_sandbox, "fsxone", fsx)
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    inventory = fsx_inventory(running_sandbox, "fsxone")
    (file_system,) = inventory["file_systems"]
    assert (file_system["Lifecycle"], file_system["StorageCapacity"]) == ("AVAILABLE", 2400)
    lustre = file_system["LustreConfiguration"]
    assert (lustre["DeploymentType"], lustre["PerUnitStorageThroughput"]) == ("PERSISTENT_2", 250)
    ec2 = aws_client("ec2", region_name="us-west-2")
    (subnet,) = ec2.describe_subnets(SubnetIds=file_system["SubnetIds"])["Subnets"]
    assert {"Key": "instantstart:role", "Value": "compute-us-west-2c"} in subnet["Tags"]
    (volume,) = inventory["volumes"]
    assert volume["spec"]["csi"]["volumeHandle"] == file_system["FileSystemId"]
    assert volume["spec"]["csi"]["volumeAttributes"] == {
        "dnsname": file_system["DNSName"],
        "mountname": lustre["MountName"],
    }
    assert volume["spec"]["capacity"]["storage"] == "2400Gi"
    assert inventory["claims"] == ["fsx-claim", "s3-claim"]
    addon = aws_client("eks", region_name="us-west-2").describe_addon(
        clusterName="eks-cluster-fsxone", addonName="aws-fsx-csi-driver"
    )["addon"]
    assert addon["status"] == "ACTIVE"
    assert addon["serviceAccountRoleArn"].endswith(":role/instantstart-fsxone-fsx-csi")
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get("/clusters/fsxone").json()["fsxClaim"] == "default/fsx-claim"
        assert api.get("/clusters/fsxone/features").json()["features"]["fsxCsiDriver"]["enabled"] is True

    with running_sandbox.client() as api:
        accepted = confirmed(api, "DELETE", "/clusters/fsxone").json()
    deleted = running_sandbox.wait_terminal(accepted["operationId"], limit_seconds=120)
    assert deleted["status"] == "SUCCEEDED", deleted.get("error")
    assert fsx_inventory(running_sandbox, "fsxone")["file_systems"] == []


@pytest.mark.parametrize(
    ("fsx", "fragment"),
    [
        ({"storageCapacityGiB": 2000}, "use 1200 or a multiple of 2400"),
        ({"storageCapacityGiB": 600}, "storageCapacityGiB"),
        ({"deploymentType": "SCRATCH_2", "perUnitStorageThroughput": 125}, "omit it"),
        ({"deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 300}, "125, 250, 500, 1000"),
        ({"deploymentType": "PERSISTENT_1"}, "deploymentType"),
    ],
)
def test_invalid_fsx_requests_are_refused_with_the_allowed_values(running_sandbox, fsx, fragment):
    with running_sandbox.client() as api:
        response = api.post("/clusters", json={"clusterTag": "fsxbad", **PIPELINE, "storage": {"fsx": fsx}})
        assert response.status_code == 400, response.text
        assert fragment in response.json()["message"]
        assert api.get("/clusters/fsxbad").status_code == 404


def test_fsx_before_the_hyperpod_stage_is_refused_with_409(running_sandbox):
    running_sandbox.build_cluster("fsxearly", hyperpod=False)
    with running_sandbox.client() as api:
        refused = api.post("/clusters/fsxearly/storage", json={"fsx": {}})
    assert refused.status_code == 409, refused.text
    assert "hyperpod" in refused.json()["message"]
    assert fsx_inventory(running_sandbox, "fsxearly")["file_systems"] == []
