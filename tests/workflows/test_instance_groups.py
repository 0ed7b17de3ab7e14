"""Instance groups and software updates on a running HyperPod cluster: exact request fields, explicit diff,
nothing lost on scale, refusals before side effects, and a fault in every step followed by resume."""

from __future__ import annotations

import pytest

from controlplane.models.operations import OperationKind
from tests.conftest import aws_client
from tests.workflows.confirm import confirmed
from tests.workflows.faults import fail_each_step_in_turn

TAG = "igroups"
SPOT = {
    "instanceGroupName": "spot-g6",
    "instanceType": "ml.g6.4xlarge",
    "instanceCount": 1,
    "availabilityZone": "us-west-2c",
    "capacityType": "spot",
    "labels": {"team": "research"},
}
EFA_ONLY = {
    "instanceGroupName": "p5-efa",
    "instanceType": "ml.p5.48xlarge",
    "instanceCount": 1,
    "availabilityZone": "us-west-2a",
    "networkInterface": "efa-only",
    "dedicatedSubnet": True,
    "ebsVolumeSizeGb": 1000,
}
# Describe fields that move on their own while a group scales; every other field must stay as it was.
MOVING = {"CurrentCount", "TargetCount", "TargetStateCount", "ActiveOperations", "Status", "InstanceTypeDetails"}


def sagemaker():
    return aws_client("sagemaker", region_name="us-west-2")


def groups() -> dict[str, dict]:
    cluster = sagemaker().describe_cluster(ClusterName=f"hp-cluster-{TAG}")
    return {group["InstanceGroupName"]: group for group in cluster["InstanceGroups"]}


@pytest.fixture(scope="module")
def cluster(running_sandbox):
    running_sandbox.build_cluster(TAG)
    return running_sandbox


def run(sandbox, response) -> dict:
    assert response.status_code == 202, response.text
    operation = sandbox.wait_terminal(response.json()["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    return operation


def test_spot_training_plan_and_efa_only_groups_carry_exactly_their_capacity_fields(cluster):
    plan = cluster.sandbox.hyperpod.add_training_plan("us-west-2", "ig-plan", "ml.g6.4xlarge", 1, "us-west-2b")
    reserved = {
        "instanceGroupName": "reserved",
        "instanceType": "ml.g6.4xlarge",
        "instanceCount": 1,
        "capacityType": "training-plan",
        "trainingPlanArn": plan,
    }
    with cluster.client() as api:
        for body in (SPOT, reserved, EFA_ONLY):
            run(cluster, api.post(f"/clusters/{TAG}/instance-groups", json=body))
        listed = {
            g["instanceGroupName"]: g for g in api.get(f"/clusters/{TAG}/instance-groups").json()["instanceGroups"]
        }
    live = groups()
    assert live["spot-g6"]["CapacityRequirements"] == {"Spot": {}}
    assert "TrainingPlanArn" not in live["spot-g6"]
    assert live["spot-g6"]["KubernetesConfig"]["DesiredLabels"] == {"team": "research"}
    assert live["reserved"]["TrainingPlanArn"] == plan
    assert "Spot" not in live["reserved"].get("CapacityRequirements", {})
    assert live["p5-efa"]["NetworkInterface"] == {"InterfaceType": "efa-only"}
    assert live["p5-efa"]["ThreadsPerCore"] == 2
    assert live["p5-efa"]["InstanceStorageConfigs"] == [{"EbsVolumeConfig": {"VolumeSizeInGB": 1000}}]
    # Groups outside the cluster's subnet (another AZ, or a dedicated subnet) get their own VPC override.
    assert "OverrideVpcConfig" not in live["spot-g6"]
    assert live["reserved"]["OverrideVpcConfig"]["Subnets"] and live["p5-efa"]["OverrideVpcConfig"]["Subnets"]
    assert (listed["spot-g6"]["capacityType"], listed["reserved"]["capacityType"]) == ("spot", "training-plan")
    assert listed["p5-efa"]["networkInterface"] == "efa-only"
    assert all(group["status"] == "InService" for group in listed.values())
    zones = {
        node["metadata"]["labels"]["sagemaker.amazonaws.com/instance-group-name"]: node["metadata"]["labels"][
            "topology.kubernetes.io/zone"
        ]
        for node in cluster.sandbox.emulator.store(f"eks-cluster-{TAG}").list("", "v1", "nodes")
    }
    assert zones == {
        "accelerated-worker": "us-west-2c",
        "spot-g6": "us-west-2c",
        "reserved": "us-west-2b",
        "p5-efa": "us-west-2a",
    }


def test_scaling_one_group_keeps_every_field_of_every_group(cluster):
    before = groups()
    with cluster.client() as api:
        response = api.patch(f"/clusters/{TAG}/instance-groups/spot-g6", json={"instanceCount": 2})
        assert response.json()["changes"] == {"instanceCount": "updated"}
        run(cluster, response)
    after = groups()
    assert after["spot-g6"]["TargetCount"] == after["spot-g6"]["CurrentCount"] == 2
    for name, group in before.items():
        kept = {key: value for key, value in group.items() if key not in MOVING}
        assert {key: value for key, value in after[name].items() if key not in MOVING} == kept, name


def test_a_scale_down_answers_with_its_plan_and_starts_only_with_its_token(cluster):
    path = f"/clusters/{TAG}/instance-groups/spot-g6"
    with cluster.client() as api:
        planned = api.patch(path, json={"instanceCount": 1})
        assert planned.status_code == 200, planned.text
        assert planned.json()["dryRun"] is True and "operationId" not in planned.json()
        assert planned.json()["actions"][0]["name"] == "1 of 2 x ml.g6.4xlarge in spot-g6"
        assert groups()["spot-g6"]["TargetCount"] == 2
        run(cluster, confirmed(api, "PATCH", path, {"instanceCount": 1}))
    assert groups()["spot-g6"]["TargetCount"] == 1
    with cluster.client() as api:
        run(cluster, api.patch(path, json={"instanceCount": 2}))


def test_software_update_is_planned_with_a_token_and_changes_nothing_without_one(cluster):
    with cluster.client() as api:
        response = api.post(f"/clusters/{TAG}/software-update", json={"instanceGroups": ["spot-g6"]})
        assert response.status_code == 200, response.text
        assert response.json()["confirmationToken"] and "restarts the nodes of spot-g6" in response.json()["message"]
        listed = api.get(f"/clusters/{TAG}/instance-groups").json()["instanceGroups"]
    assert not any(g.get("softwareUpdateStatus") for g in listed)


def test_an_identical_patch_changes_nothing_and_starts_no_operation(cluster):
    with cluster.client() as api:
        operations_before = len(api.get("/operations", params={"clusterTag": TAG}).json()["operations"])
        response = api.patch(
            f"/clusters/{TAG}/instance-groups/spot-g6",
            json={"instanceCount": 2, "labels": {"team": "research"}, "instanceType": "ml.g6.4xlarge"},
        )
        operations_after = len(api.get("/operations", params={"clusterTag": TAG}).json()["operations"])
    assert response.status_code == 200, response.text
    assert response.json()["changes"] == {
        "instanceCount": "unchanged",
        "labels": "unchanged",
        "instanceType": "unchanged",
    }
    assert "operationId" not in response.json()
    assert operations_after == operations_before


def test_labels_and_taints_change_without_touching_the_count(cluster):
    taint = {"key": "dedicated", "value": "research", "effect": "NoSchedule"}
    with cluster.client() as api:
        response = api.patch(
            f"/clusters/{TAG}/instance-groups/spot-g6",
            json={"labels": {"team": "infra"}, "taints": [taint], "deepHealthChecks": False},
        )
        assert response.json()["changes"] == {"labels": "updated", "taints": "updated", "deepHealthChecks": "updated"}
        run(cluster, response)
    group = groups()["spot-g6"]
    assert group["TargetCount"] == 2
    assert group["CapacityRequirements"] == {"Spot": {}}
    assert "OnStartDeepHealthChecks" not in group
    assert group["KubernetesConfig"]["DesiredLabels"] == {"team": "infra"}
    assert group["KubernetesConfig"]["DesiredTaints"] == [
        {"Key": "dedicated", "Value": "research", "Effect": "NoSchedule"}
    ]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "fragment"),
    [
        (
            "post",
            "instance-groups",
            {**SPOT, "instanceGroupName": "g6-efa", "networkInterface": "efa-only"},
            400,
            "immutable",
        ),
        (
            "post",
            "instance-groups",
            {
                **SPOT,
                "instanceGroupName": "dup",
                "trainingPlanArn": "arn:aws:sagemaker:us-west-2:123456789012:training-plan/x",
            },
            400,
            "cannot be combined",
        ),
        ("post", "instance-groups", {**SPOT, "instanceCount": 0}, 400, "instanceCount"),
        ("post", "instance-groups", SPOT, 409, "already exists"),
        (
            "post",
            "instance-groups",
            {**SPOT, "instanceGroupName": "bad-label", "labels": {"kubernetes.io/x": "y"}},
            400,
            "reserved",
        ),
        ("patch", "instance-groups/spot-g6", {"instanceType": "ml.g6.8xlarge"}, 400, "immutable"),
        ("patch", "instance-groups/spot-g6", {"networkInterface": "efa-only"}, 400, "immutable"),
        ("patch", "instance-groups/spot-g6", {"minInstanceCount": 2, "instanceCount": 1}, 400, "at least 2"),
        ("patch", "instance-groups/spot-g6", {}, 400, "at least one field"),
        ("patch", "instance-groups/nope", {"instanceCount": 1}, 404, "spot-g6"),
        (
            "patch",
            "instance-groups/accelerated-worker",
            {"taints": [{"key": "a", "effect": "NoSchedule"}]},
            400,
            "deep health checks",
        ),
    ],
)
def test_invalid_requests_are_refused_before_any_side_effect(cluster, method, path, body, status, fragment):
    before = groups()
    with cluster.client() as api:
        response = getattr(api, method)(f"/clusters/{TAG}/{path}", json=body)
    assert response.status_code == status, response.text
    assert fragment in response.json()["message"]
    assert groups() == before


def test_deleting_a_group_that_runs_jobs_is_refused_then_allowed_once_they_stop(cluster):
    store = cluster.sandbox.emulator.store(f"eks-cluster-{TAG}")
    node = next(
        n["metadata"]["name"]
        for n in store.list("", "v1", "nodes")
        if n["metadata"]["labels"]["sagemaker.amazonaws.com/instance-group-name"] == "p5-efa"
    )
    store.put(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "trainer-0", "namespace": "research"},
            "spec": {"nodeName": node, "containers": [{"name": "main", "image": "trainer"}]},
            "status": {"phase": "Running"},
        }
    )
    with cluster.client() as api:
        refused = api.delete(f"/clusters/{TAG}/instance-groups/p5-efa")
        assert refused.status_code == 409, refused.text
        assert "research/trainer-0" in refused.json()["message"]
        store.delete("", "v1", "pods", "research", "trainer-0")
        plan = api.delete(f"/clusters/{TAG}/instance-groups/p5-efa")
        assert plan.status_code == 200 and "p5-efa" in plan.json()["actions"][0]["name"]
        assert "p5-efa" in groups()
        wrong = api.delete(
            f"/clusters/{TAG}/instance-groups/reserved", params={"confirmationToken": plan.json()["confirmationToken"]}
        )
        assert wrong.status_code == 400 and "reserved" in groups()
        run(cluster, confirmed(api, "DELETE", f"/clusters/{TAG}/instance-groups/p5-efa"))
    assert "p5-efa" not in groups()
    dedicated = aws_client("ec2", region_name="us-west-2").describe_subnets(
        Filters=[{"Name": "tag:instantstart:role", "Values": ["compute-us-west-2a-p5-efa"]}]
    )["Subnets"]
    assert dedicated == []


def test_software_update_patches_every_group_once(cluster):
    with cluster.client() as api:
        assert {
            g["imageReleaseVersion"] for g in api.get(f"/clusters/{TAG}/instance-groups").json()["instanceGroups"]
        } == {"1.0.0"}
        body = {"rollingPolicy": {"batchType": "count", "batchSize": 1}}
        run(cluster, confirmed(api, "POST", f"/clusters/{TAG}/software-update", body))
        listed = api.get(f"/clusters/{TAG}/instance-groups").json()["instanceGroups"]
        nodes = api.get(f"/clusters/{TAG}/nodes").json()["nodes"]
    assert {g["imageReleaseVersion"] for g in listed} == {"1.0.1"}
    assert {n["imageReleaseVersion"] for n in nodes} == {"1.0.1"}
    assert {g["softwareUpdateStatus"] for g in listed} == {"Succeeded"}


WORKFLOW = {
    "add": OperationKind.ADD_INSTANCE_GROUP,
    "update": OperationKind.UPDATE_INSTANCE_GROUP,
    "delete": OperationKind.DELETE_INSTANCE_GROUP,
    "software": OperationKind.UPDATE_CLUSTER_SOFTWARE,
}


@pytest.mark.parametrize("kind", WORKFLOW)
def test_every_step_fails_once_in_turn_and_resume_converges(cluster, kind):
    name = f"f{kind[0]}-faults"
    body = {**SPOT, "instanceGroupName": name, "dedicatedSubnet": True, "availabilityZone": "us-west-2d"}
    with cluster.client() as api:
        if kind in ("update", "delete"):
            run(cluster, api.post(f"/clusters/{TAG}/instance-groups", json=body))

        def start() -> str:
            if kind == "add":
                response = api.post(f"/clusters/{TAG}/instance-groups", json=body)
            elif kind == "update":
                response = api.patch(f"/clusters/{TAG}/instance-groups/{name}", json={"instanceCount": 2})
            elif kind == "delete":
                response = confirmed(api, "DELETE", f"/clusters/{TAG}/instance-groups/{name}")
            else:
                response = confirmed(
                    api,
                    "POST",
                    f"/clusters/{TAG}/software-update",
                    {"instanceGroups": ["spot-g6"], "imageId": "ami-0123456789abcdef0"},
                )
            return str(response.json()["operationId"])

        fail_each_step_in_turn(cluster, WORKFLOW[kind], start)
    live = groups()
    subnets = aws_client("ec2", region_name="us-west-2").describe_subnets(
        Filters=[{"Name": "tag:instantstart:role", "Values": [f"compute-us-west-2d-{name}"]}]
    )["Subnets"]
    if kind == "add":
        assert live[name]["CurrentCount"] == 1 and len(subnets) == 1
    elif kind == "update":
        assert live[name]["CurrentCount"] == 2 and live[name]["CapacityRequirements"] == {"Spot": {}}
    elif kind == "delete":
        assert name not in live and subnets == []
    else:
        assert live["spot-g6"]["DesiredImageId"] == "ami-0123456789abcdef0"
        assert live["spot-g6"]["SoftwareUpdateStatus"] == "Succeeded"
