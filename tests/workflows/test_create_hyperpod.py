"""Stage 4 end to end: the HyperPod cluster with its first group, nodes in Kubernetes, faults and resume."""

from __future__ import annotations

import pytest

from controlplane.models.operations import OperationKind
from tests.conftest import aws_client
from tests.workflows.confirm import confirmed
from tests.workflows.faults import fail_each_step_in_turn

FIRST_GROUP = {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1}


def hyperpod_inventory(running_sandbox, tag: str) -> dict[str, object]:
    sagemaker = aws_client("sagemaker", region_name="us-west-2")
    clusters = [
        c["ClusterName"]
        for c in sagemaker.list_clusters()["ClusterSummaries"]
        if c["ClusterName"] == f"hp-cluster-{tag}"
    ]
    nodes = running_sandbox.sandbox.emulator.store(f"eks-cluster-{tag}").list("", "v1", "nodes")
    ec2 = aws_client("ec2", region_name="us-west-2")
    compute = ec2.describe_subnets(
        Filters=[
            {"Name": "tag:instantstart:cluster", "Values": [tag]},
            {"Name": "tag:instantstart:role", "Values": ["compute-us-west-2c"]},
        ]
    )
    associations = aws_client("eks", region_name="us-west-2").list_pod_identity_associations(
        clusterName=f"eks-cluster-{tag}", namespace="aws-hyperpod"
    )["associations"]
    return {
        "hyperpod_clusters": len(clusters),
        "nodes": len(nodes),
        "compute_subnets": len(compute["Subnets"]),
        "training_operator_associations": len(associations),
    }


ONE_NODE = {"hyperpod_clusters": 1, "nodes": 1, "compute_subnets": 1, "training_operator_associations": 1}


def test_the_seed_conversation_ends_with_one_ready_gpu_node(running_sandbox):
    running_sandbox.build_cluster("hpdemo", hyperpod=False)
    with running_sandbox.client() as api:
        response = api.post("/clusters/hpdemo/hyperpod", json=FIRST_GROUP)
        assert response.status_code == 202, response.text
        operation = running_sandbox.wait_terminal(response.json()["operationId"])
        assert operation["status"] == "SUCCEEDED", operation.get("error")
        assert api.get("/clusters/hpdemo").json()["stagesDone"] == ["eks", "dependencies", "hyperpod"]
    cluster = aws_client("sagemaker", region_name="us-west-2").describe_cluster(ClusterName="hp-cluster-hpdemo")
    assert cluster["NodeRecovery"] == "Automatic"
    assert cluster["NodeProvisioningMode"] == "Continuous"
    (group,) = cluster["InstanceGroups"]
    assert group["InstanceType"] == "ml.g6.4xlarge"
    assert group["OnStartDeepHealthChecks"] == ["InstanceStress", "InstanceConnectivity"]
    assert group["LifeCycleConfig"]["SourceS3Uri"].startswith("s3://sagemaker-")
    (node,) = running_sandbox.sandbox.emulator.store("eks-cluster-hpdemo").list("", "v1", "nodes")
    assert node["status"]["capacity"]["nvidia.com/gpu"] == "1"
    assert node["metadata"]["labels"]["topology.kubernetes.io/zone"] == "us-west-2c"
    assert hyperpod_inventory(running_sandbox, "hpdemo") == ONE_NODE
    with running_sandbox.client() as api:
        before_storage = api.get("/clusters/hpdemo/status").json()
        assert before_storage["ready"] is False
        assert before_storage["missing"] == ["stage 'storage'"]
        accepted = api.post("/clusters/hpdemo/storage", json={}).json()
        assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
        status = api.get("/clusters/hpdemo/status").json()
    assert status["ready"] is True, status["missing"]
    assert (status["nodesReady"], status["gpusTotal"]) == (1, 1)
    assert status["nodes"][0]["instanceType"] == "ml.g6.4xlarge"
    assert status["hyperPodStatus"] == "InService"


def node_ready(running_sandbox, tag: str) -> list[str]:
    nodes = running_sandbox.sandbox.emulator.store(f"eks-cluster-{tag}").list("", "v1", "nodes")
    return [c["status"] for node in nodes for c in node["status"]["conditions"] if c["type"] == "Ready"]


def test_an_execution_role_made_with_only_the_instance_policy_gets_what_its_nodes_need(running_sandbox):
    """A role an older control plane made (HyperPod's instance policy only) is brought up to date: its nodes' VPC CNI
    initialises, so they are Ready and the cluster is ready for work."""
    running_sandbox.build_cluster("hpold", hyperpod=False)
    iam = aws_client("iam")
    boundary = next(p["Arn"] for p in iam.list_policies(Scope="Local")["Policies"] if "service-role" in p["PolicyName"])
    tags = [
        {"Key": "instantstart:cluster", "Value": "hpold"},
        {"Key": "instantstart:managed-by", "Value": "instantstart"},
        {"Key": "instantstart:deployment-region", "Value": "us-east-1"},
    ]
    name = "instantstart-hpold-hyperpod-exec"
    iam.create_role(RoleName=name, AssumeRolePolicyDocument="{}", Tags=tags, PermissionsBoundary=boundary)
    iam.attach_role_policy(RoleName=name, PolicyArn="arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy")
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/hpold/hyperpod", json=FIRST_GROUP).json()
        operation = running_sandbox.wait_terminal(accepted["operationId"])
        assert operation["status"] == "SUCCEEDED", operation.get("error")
        status = api.get("/clusters/hpold/status").json()

    attached = {p["PolicyName"] for p in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]}
    assert {
        "AmazonEKS_CNI_Policy",
        "AmazonEC2ContainerRegistryPullOnly",
        "AmazonEKSWorkerNodeMinimalPolicy",
    } <= attached
    assert node_ready(running_sandbox, "hpold") == ["True"]
    assert status["missing"] == ["stage 'storage'"]


def test_nodes_launched_after_the_cni_policy_was_detached_are_not_ready_and_the_status_names_it(running_sandbox):
    running_sandbox.build_cluster("hpcni", hyperpod=False)
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/hpcni/hyperpod", json=FIRST_GROUP).json()
        assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
        aws_client("iam").detach_role_policy(
            RoleName="instantstart-hpcni-hyperpod-exec", PolicyArn="arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"
        )
        group = {"instanceGroupName": "extra", **FIRST_GROUP}
        accepted = api.post("/clusters/hpcni/instance-groups", json=group).json()
        operation = running_sandbox.wait_terminal(accepted["operationId"])
        assert operation["status"] == "SUCCEEDED", operation.get("error")
        status = api.get("/clusters/hpcni/status").json()

    assert sorted(node_ready(running_sandbox, "hpcni")) == ["False", "True"]
    assert status["ready"] is False
    (not_ready,) = [entry for entry in status["missing"] if entry.startswith("nodes Ready")]
    assert "KubeletNotReady" in not_ready and "cni plugin not initialized" in not_ready
    assert any(
        "AmazonEKS_CNI_Policy" in entry and "ec2:AssignPrivateIpAddresses" in entry for entry in status["missing"]
    )


def test_a_training_plan_brings_its_own_availability_zone(running_sandbox):
    running_sandbox.build_cluster("hpplan", hyperpod=False)
    arn = running_sandbox.sandbox.hyperpod.add_training_plan("us-west-2", "plan-b", "ml.g6.4xlarge", 2, "us-west-2b")
    body = {
        "instanceType": "ml.g6.4xlarge",
        "instanceCount": 2,
        "capacityType": "training-plan",
        "trainingPlanArn": arn,
    }
    with running_sandbox.client() as api:
        response = api.post("/clusters/hpplan/hyperpod", json=body)
        assert response.status_code == 202, response.text
        assert running_sandbox.wait_terminal(response.json()["operationId"])["status"] == "SUCCEEDED"
    (group,) = aws_client("sagemaker", region_name="us-west-2").describe_cluster(ClusterName="hp-cluster-hpplan")[
        "InstanceGroups"
    ]
    assert group["TrainingPlanArn"] == arn
    zones = {
        n["metadata"]["labels"]["topology.kubernetes.io/zone"]
        for n in running_sandbox.sandbox.emulator.store("eks-cluster-hpplan").list("", "v1", "nodes")
    }
    assert zones == {"us-west-2b"}


@pytest.mark.parametrize(
    ("body", "status", "code", "fragment"),
    [
        ({**FIRST_GROUP, "instanceType": "ml.g6.99xlarge"}, 400, "InvalidRequest", "not offered"),
        ({**FIRST_GROUP, "availabilityZone": "us-east-1a"}, 400, "InvalidRequest", "not in us-west-2"),
        ({**FIRST_GROUP, "instanceCount": 0}, 400, "InvalidRequest", "instanceCount"),
        (
            {
                **FIRST_GROUP,
                "capacityType": "spot",
                "trainingPlanArn": "arn:aws:sagemaker:us-west-2:123456789012:training-plan/x",
            },
            400,
            "InvalidRequest",
            "cannot be combined",
        ),
        (
            {
                **FIRST_GROUP,
                "capacityType": "training-plan",
                "trainingPlanArn": "arn:aws:sagemaker:us-west-2:123456789012:training-plan/nope",
            },
            400,
            "InvalidRequest",
            "Unknown training plan",
        ),
        (
            {**FIRST_GROUP, "instanceType": "ml.m5.xlarge", "deepHealthChecks": True},
            400,
            "InvalidRequest",
            "Deep health checks",
        ),
    ],
)
def test_invalid_first_groups_are_refused_before_any_side_effect(running_sandbox, body, status, code, fragment):
    tag = "hpinvalid"
    with running_sandbox.client() as api:
        if api.get(f"/clusters/{tag}").status_code == 404:
            running_sandbox.build_cluster(tag, hyperpod=False)
        response = api.post(f"/clusters/{tag}/hyperpod", json=body)
        assert response.status_code == status, response.text
        assert response.json()["code"] == code
        assert fragment in response.json()["message"]
        assert api.get(f"/clusters/{tag}").json()["stagesDone"] == ["eks", "dependencies"]
    assert hyperpod_inventory(running_sandbox, tag)["hyperpod_clusters"] == 0


def test_hyperpod_before_dependencies_is_refused_with_409(running_sandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "hpearly", "region": "us-west-2"}).json()
        assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
        refused = api.post("/clusters/hpearly/hyperpod", json=FIRST_GROUP)
    assert refused.status_code == 409
    assert refused.json()["code"] == "ClusterNotReady"
    assert "dependencies" in refused.json()["message"]


def test_every_hyperpod_step_fails_once_in_turn_and_resume_creates_everything_once(running_sandbox):
    # The sandbox's HyperPod is InService before the first check here, so the loop never parks in its event wait;
    # that a failing event wait fails the operation is the ASL's own rule (tests/contract/test_workflow_definitions.py).
    running_sandbox.build_cluster("hpfaults", hyperpod=False)

    def start() -> str:
        with running_sandbox.client() as api:
            return api.post("/clusters/hpfaults/hyperpod", json=FIRST_GROUP).json()["operationId"]

    fail_each_step_in_turn(running_sandbox, OperationKind.CREATE_HYPERPOD_CLUSTER, start)
    assert hyperpod_inventory(running_sandbox, "hpfaults") == ONE_NODE


def test_deleting_a_cluster_with_hyperpod_removes_every_stage(running_sandbox):
    from tests.inventory import NOTHING, stage1_inventory

    running_sandbox.build_cluster("hpgone", hyperpod=False)
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/hpgone/hyperpod", json=FIRST_GROUP).json()
        assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
        accepted = confirmed(api, "DELETE", "/clusters/hpgone").json()
        operation = running_sandbox.wait_terminal(accepted["operationId"])
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    assert [stage["name"] for stage in operation["stages"]] == [
        "hyperpod",
        "storage",
        "eks-control-plane",
        "iam",
        "network",
        "events",
    ]
    assert stage1_inventory("hpgone") == NOTHING
    sagemaker = aws_client("sagemaker", region_name="us-west-2")
    assert "hp-cluster-hpgone" not in [c["ClusterName"] for c in sagemaker.list_clusters()["ClusterSummaries"]]
    roles = [r["RoleName"] for r in aws_client("iam").list_roles()["Roles"]]
    assert not [r for r in roles if r.startswith("instantstart-hpgone-")]
    buckets = [b["Name"] for b in aws_client("s3").list_buckets()["Buckets"]]
    assert not [b for b in buckets if "-hpgone-" in b]
