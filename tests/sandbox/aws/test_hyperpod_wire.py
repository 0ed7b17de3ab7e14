"""HyperPod's SageMaker wire operations, driven through boto3 against moto with the extension installed."""

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws.eks.clusters import EksClusters
from sandbox.aws.hyperpod.extension import HyperPodExtension, MotoAccount
from sandbox.aws.hyperpod.kubernetes import HEALTH_LABEL, HyperPodKubernetes
from sandbox.aws.hyperpod.simulation import HyperPodSimulation
from sandbox.k8s.emulator import KubernetesEmulator

REGION = "us-west-2"
DELAY = 0.05
LIFECYCLE = {"SourceS3Uri": "s3://sagemaker-lifecycle/scripts/", "OnCreate": "on_create.sh"}
# What an EKS node's role needs (the VPC CNI, ECR pulls, EKS Pod Identity), as one inline policy.
NODE_ACTIONS = [
    "ec2:AssignPrivateIpAddresses",
    "ec2:AttachNetworkInterface",
    "ec2:CreateNetworkInterface",
    "ec2:DescribeNetworkInterfaces",
    "ecr:GetAuthorizationToken",
    "ecr:BatchGetImage",
    "ecr:GetDownloadUrlForLayer",
    "eks-auth:AssumeRoleForPodIdentity",
]


def policy(*actions: str) -> str:
    return json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": list(actions), "Resource": "*"}]}
    )


@dataclass
class Account:
    """The moto account the module shares: subnets, a security group, an API-mode and a CONFIG_MAP EKS cluster."""

    sagemaker: Any
    emulator: KubernetesEmulator
    role_arn: str
    eks_arn: str
    config_map_eks_arn: str
    subnets: list[str]
    security_group: str


@dataclass
class World(Account):
    """The account with one test's own simulation installed."""

    hyperpod: HyperPodSimulation
    extension: HyperPodExtension

    def group(self, name: str = "workers", count: int = 2, **extra: Any) -> dict[str, Any]:
        return {
            "InstanceGroupName": name,
            "InstanceType": "ml.g6.4xlarge",
            "InstanceCount": count,
            "ExecutionRole": self.role_arn,
            "LifeCycleConfig": LIFECYCLE,
            "ThreadsPerCore": 1,
            **extra,
        }

    def create(self, name: str = "hp", groups: list[dict[str, Any]] | None = None, **extra: Any) -> str:
        request = {
            "ClusterName": name,
            "InstanceGroups": groups if groups is not None else [self.group()],
            "VpcConfig": {"SecurityGroupIds": [self.security_group], "Subnets": self.subnets[:1]},
            "Orchestrator": {"Eks": {"ClusterArn": self.eks_arn}},
            "NodeRecovery": "Automatic",
            "Tags": [{"Key": "team", "Value": "ml"}],
            **extra,
        }
        return self.sagemaker.create_cluster(**request)["ClusterArn"]

    def describe(self, name: str = "hp") -> dict[str, Any]:
        return self.sagemaker.describe_cluster(ClusterName=name)

    def wait_for(self, name: str, status: str = "InService") -> dict[str, Any]:
        def reached() -> dict[str, Any] | None:
            described = self.describe(name)
            return described if described["ClusterStatus"] == status else None

        return wait_until(reached)

    def nodes(self, name: str = "hp") -> list[dict[str, Any]]:
        return self.sagemaker.list_cluster_nodes(ClusterName=name)["ClusterNodeSummaries"]

    def kubernetes_nodes(self) -> dict[str, dict[str, Any]]:
        return {node["metadata"]["name"]: node for node in self.emulator.store("ml-eks").list("", "v1", "nodes")}


class ManualClock:
    """Simulated time that only the tests move: a transition happens when a test waits for it, never because the
    machine was slow between two calls."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


CLOCK = ManualClock()


def wait_until(probe: Callable[[], Any], steps: int = 60) -> Any:
    """Probe, then move simulated time one transition ahead, until the probe holds (at most `steps` transitions)."""
    for _ in range(steps):
        result = probe()
        if result:
            return result
        CLOCK.now += DELAY
    raise AssertionError(f"condition not reached within {steps} transitions")


def error_code(error: pytest.ExceptionInfo[ClientError]) -> str:
    return error.value.response["Error"]["Code"]


def simulation(emulator: KubernetesEmulator) -> HyperPodSimulation:
    return HyperPodSimulation(HyperPodKubernetes(emulator), MotoAccount(), seconds=DELAY, clock=CLOCK)


def test_uninstall_restores_moto_cluster_operations() -> None:
    """Runs before the module's account fixture installs the extension for the other tests."""
    names = ("create_cluster", "update_cluster", "list_clusters")
    before = {name: SageMakerResponse.__dict__.get(name) for name in names}
    extension = HyperPodExtension(simulation(KubernetesEmulator()))
    extension.install()
    assert SageMakerResponse.__dict__["create_cluster"] is not before["create_cluster"]
    assert "update_cluster" in SageMakerResponse.__dict__

    extension.uninstall()

    assert {name: SageMakerResponse.__dict__.get(name) for name in before} == before


@pytest.fixture(scope="module")
def account() -> Iterator[Account]:
    """One moto account for the module (building EC2's backend is slow); `world` installs a fresh simulation."""
    with mock_aws():
        emulator = KubernetesEmulator()
        eks_clusters = EksClusters(
            endpoint_for=lambda name: f"http://127.0.0.1:9/{name}",
            seconds=0,
            on_active=emulator.add_cluster,
            on_deleted=lambda region, name: emulator.remove_cluster(name),
        )
        eks_clusters.install()
        try:
            iam = boto3.client("iam", region_name=REGION)
            role_arn = iam.create_role(RoleName="hyperpod-exec", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
            iam.put_role_policy(RoleName="hyperpod-exec", PolicyName="eks-node", PolicyDocument=policy(*NODE_ACTIONS))
            ec2 = boto3.client("ec2", region_name=REGION)
            vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
            subnets = [
                ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i}.0/24", AvailabilityZone=f"{REGION}{zone}")["Subnet"][
                    "SubnetId"
                ]
                for i, zone in enumerate("ab")
            ]
            security_group = ec2.create_security_group(GroupName="hp", Description="hp", VpcId=vpc)["GroupId"]
            eks = boto3.client("eks", region_name=REGION)
            arns = {}
            for name, mode in (("ml-eks", "API_AND_CONFIG_MAP"), ("legacy-eks", "CONFIG_MAP")):
                arns[name] = eks.create_cluster(
                    name=name,
                    roleArn=role_arn,
                    resourcesVpcConfig={"subnetIds": subnets, "securityGroupIds": [security_group]},
                    accessConfig={"authenticationMode": mode},
                )["cluster"]["arn"]
            yield Account(
                sagemaker=boto3.client("sagemaker", region_name=REGION),
                emulator=emulator,
                role_arn=role_arn,
                eks_arn=arns["ml-eks"],
                config_map_eks_arn=arns["legacy-eks"],
                subnets=subnets,
                security_group=security_group,
            )
        finally:
            eks_clusters.uninstall()


@pytest.fixture
def world(account: Account) -> Iterator[World]:
    store = account.emulator.store("ml-eks")
    for node in store.list("", "v1", "nodes"):
        store.delete("", "v1", "nodes", None, node["metadata"]["name"])
    hyperpod = simulation(account.emulator)
    extension = HyperPodExtension(hyperpod)
    extension.install()
    yield World(**vars(account), hyperpod=hyperpod, extension=extension)
    extension.uninstall()


def test_a_g6_cluster_is_creating_then_in_service_with_gpu_nodes_in_kubernetes(world: World) -> None:
    arn = world.create(
        groups=[
            world.group(
                KubernetesConfig={
                    "Labels": {"team": "research"},
                    "Taints": [{"Key": "dedicated", "Value": "gpu", "Effect": "NoSchedule"}],
                },
            )
        ],
        NodeProvisioningMode="Continuous",
        TieredStorageConfig={"Mode": "Enable", "InstanceMemoryAllocationPercentage": 20},
    )

    assert re.fullmatch(rf"arn:aws:sagemaker:{REGION}:\d{{12}}:cluster/[a-z0-9]{{12}}", arn)
    creating = world.describe()
    assert creating["ClusterStatus"] == "Creating"
    assert creating["InstanceGroups"][0]["Status"] == "Creating"
    assert creating["InstanceGroups"][0]["CurrentCount"] == 0
    assert world.nodes() == []

    ready = world.wait_for("hp")
    group = ready["InstanceGroups"][0]
    assert (group["Status"], group["CurrentCount"], group["TargetCount"]) == ("InService", 2, 2)
    assert group["InstanceType"] == "ml.g6.4xlarge"
    assert group["LifeCycleConfig"] == LIFECYCLE
    assert group["KubernetesConfig"]["CurrentLabels"] == {"team": "research"}
    assert ready["Orchestrator"] == {"Eks": {"ClusterArn": world.eks_arn}}
    assert ready["NodeProvisioningMode"] == "Continuous"
    assert ready["TieredStorageConfig"]["InstanceMemoryAllocationPercentage"] == 20

    nodes = world.nodes()
    assert len(nodes) == 2
    assert all(re.fullmatch(r"i-[0-9a-f]{17}", node["InstanceId"]) for node in nodes)
    assert nodes[0]["InstanceStatus"]["Status"] == "Running"
    assert (nodes[0]["InstanceGroupName"], nodes[0]["InstanceType"]) == ("workers", "ml.g6.4xlarge")
    assert nodes[0]["PrivateDnsHostname"].endswith(f".{REGION}.compute.internal")

    kubernetes = world.kubernetes_nodes()
    assert set(kubernetes) == {f"hyperpod-{node['InstanceId']}" for node in nodes}
    node = kubernetes[f"hyperpod-{nodes[0]['InstanceId']}"]
    labels = node["metadata"]["labels"]
    assert labels["node.kubernetes.io/instance-type"] == "ml.g6.4xlarge"
    assert labels["sagemaker.amazonaws.com/instance-group-name"] == "workers"
    assert labels[HEALTH_LABEL] == "Schedulable"
    assert labels["topology.kubernetes.io/zone"] == f"{REGION}a"
    assert labels["sagemaker.amazonaws.com/capacity-type"] == "OnDemand"
    assert re.fullmatch(r"node-[0-9a-f]{16}", labels["sagemaker.amazonaws.com/node-logical-id"])
    assert labels["team"] == "research"
    assert node["spec"]["taints"] == [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    assert node["spec"]["providerID"].endswith(nodes[0]["InstanceId"])
    assert node["status"]["capacity"]["nvidia.com/gpu"] == "1"
    assert "vpc.amazonaws.com/efa" not in node["status"]["capacity"]
    assert {"type": "Ready", "status": "True"}.items() <= node["status"]["conditions"][0].items()


def test_nodes_whose_execution_role_lacks_the_cni_actions_stay_not_ready_until_the_role_allows_them(
    world: World,
) -> None:
    iam = boto3.client("iam", region_name=REGION)
    role = iam.create_role(RoleName="instance-policy-only", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    lacking_cni = [action for action in NODE_ACTIONS if not action.startswith("ec2:")]
    iam.put_role_policy(RoleName="instance-policy-only", PolicyName="eks-node", PolicyDocument=policy(*lacking_cni))
    world.create(groups=[world.group(count=1, ExecutionRole=role)])

    world.wait_for("hp")
    (instance,) = world.nodes()
    (node,) = world.kubernetes_nodes().values()
    (ready,) = node["status"]["conditions"]

    assert instance["InstanceStatus"]["Status"] == "Running"  # what HyperPod shows
    assert (ready["status"], ready["reason"]) == ("False", "KubeletNotReady")
    assert "cni plugin not initialized" in ready["message"]
    assert {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"} in node["spec"]["taints"]

    iam.put_role_policy(RoleName="instance-policy-only", PolicyName="eks-node", PolicyDocument=policy(*NODE_ACTIONS))
    world.describe()  # any HyperPod call lets time pass
    (node,) = world.kubernetes_nodes().values()

    assert node["status"]["conditions"][0]["status"] == "True"
    assert not [taint for taint in node["spec"]["taints"] if taint["key"] == "node.kubernetes.io/not-ready"]


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"eks": "legacy"}, "API_AND_CONFIG_MAP"),
        ({"LifeCycleConfig": {"SourceS3Uri": "s3://my-bucket/x", "OnCreate": "a.sh"}}, "s3://sagemaker-"),
        ({"TrainingPlanArn": f"arn:aws:sagemaker:{REGION}:123456789012:training-plan/nope"}, "does not exist"),
        ({"CapacityRequirements": {"Spot": {}, "OnDemand": {}}}, "Spot or OnDemand"),
        ({"InstanceType": "ml.m5.xlarge", "OnStartDeepHealthChecks": ["InstanceStress"]}, "deep health checks"),
        ({"OverrideVpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-0dead"]}}, "does not exist"),
    ],
)
def test_a_create_request_the_service_would_refuse_is_a_validation_exception(
    world: World, change: dict[str, Any], fragment: str
) -> None:
    eks_arn = world.config_map_eks_arn if change.pop("eks", None) else world.eks_arn

    with pytest.raises(ClientError) as error:
        world.create(groups=[world.group(**change)], Orchestrator={"Eks": {"ClusterArn": eks_arn}})

    assert error_code(error) == "ValidationException"
    assert fragment in error.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as missing:
        world.describe()
    assert error_code(missing) == "ResourceNotFound"


def test_a_second_cluster_with_the_same_name_is_resource_in_use(world: World) -> None:
    world.create()
    with pytest.raises(ClientError) as error:
        world.create()
    assert error_code(error) == "ResourceInUse"


def test_a_training_plan_places_nodes_in_its_zone_and_is_listed(world: World) -> None:
    plan = world.hyperpod.add_training_plan(REGION, "p5-plan", "ml.p5.48xlarge", 4, f"{REGION}b")
    world.create(
        groups=[world.group(InstanceType="ml.p5.48xlarge", count=1, TrainingPlanArn=plan)],
        VpcConfig={"SecurityGroupIds": [world.security_group], "Subnets": world.subnets},
    )

    group = world.wait_for("hp")["InstanceGroups"][0]
    assert (group["TrainingPlanArn"], group["TrainingPlanStatus"]) == (plan, "Active")
    node_id = world.nodes()[0]["InstanceId"]
    kubernetes = world.kubernetes_nodes()[f"hyperpod-{node_id}"]
    assert kubernetes["metadata"]["labels"]["topology.kubernetes.io/zone"] == f"{REGION}b"
    capacity = kubernetes["status"]["capacity"]
    assert (capacity["nvidia.com/gpu"], capacity["vpc.amazonaws.com/efa"]) == ("8", "32")
    summaries = world.sagemaker.list_training_plans()["TrainingPlanSummaries"]
    assert [(s["TrainingPlanArn"], s["InUseInstanceCount"]) for s in summaries] == [(plan, 1)]
    described = world.sagemaker.describe_training_plan(TrainingPlanName="p5-plan")
    assert described["ReservedCapacitySummaries"][0]["AvailabilityZone"] == f"{REGION}b"
    with pytest.raises(ClientError) as error:
        world.create(name="other", groups=[world.group(TrainingPlanArn=plan)])
    assert "does not match" in error.value.response["Error"]["Message"]


def test_update_cluster_scales_groups_up_and_down_and_refuses_while_creating(world: World) -> None:
    world.create()
    with pytest.raises(ClientError) as error:
        world.sagemaker.update_cluster(ClusterName="hp", InstanceGroups=[world.group(count=3)])
    assert error_code(error) == "ConflictException"
    world.wait_for("hp")

    world.sagemaker.update_cluster(
        ClusterName="hp",
        InstanceGroups=[world.group(count=4), world.group("cpu", count=1, InstanceType="ml.m5.xlarge")],
    )
    updating = world.describe()
    assert updating["ClusterStatus"] == "Updating"
    assert [(g["InstanceGroupName"], g["Status"], g["TargetCount"]) for g in updating["InstanceGroups"]] == [
        ("workers", "Updating", 4),
        ("cpu", "Creating", 1),
    ]
    scaled = world.wait_for("hp")
    assert [g["CurrentCount"] for g in scaled["InstanceGroups"]] == [4, 1]
    assert len(world.kubernetes_nodes()) == 5
    assert (
        "nvidia.com/gpu"
        not in next(
            n
            for n in world.kubernetes_nodes().values()
            if n["metadata"]["labels"]["node.kubernetes.io/instance-type"] == "ml.m5.xlarge"
        )["status"]["capacity"]
    )

    world.sagemaker.update_cluster(ClusterName="hp", InstanceGroups=[world.group(count=1)])
    world.wait_for("hp")
    assert sorted(n["InstanceGroupName"] for n in world.nodes()) == ["cpu", "workers"]
    assert len(world.kubernetes_nodes()) == 2


def test_deleting_an_instance_group_removes_its_nodes(world: World) -> None:
    world.create(groups=[world.group(), world.group("cpu", count=1, InstanceType="ml.m5.xlarge")])
    world.wait_for("hp")

    world.sagemaker.update_cluster(ClusterName="hp", InstanceGroupsToDelete=["cpu"])
    assert [g["Status"] for g in world.describe()["InstanceGroups"]] == ["InService", "Deleting"]

    done = world.wait_for("hp")
    assert [g["InstanceGroupName"] for g in done["InstanceGroups"]] == ["workers"]
    assert {n["InstanceGroupName"] for n in world.nodes()} == {"workers"}
    assert len(world.kubernetes_nodes()) == 2


def test_batch_node_operations_report_unknown_nodes_in_band(world: World) -> None:
    world.create(groups=[world.group(count=3)])
    world.wait_for("hp")
    first, second, third = (n["InstanceId"] for n in world.nodes())
    unknown = "i-0123456789abcdef0"

    rebooted = world.sagemaker.batch_reboot_cluster_nodes(ClusterName="hp", NodeIds=[first, unknown])
    assert rebooted["Successful"] == [first]
    assert rebooted["Failed"][0]["NodeId"] == unknown
    assert rebooted["Failed"][0]["ErrorCode"] == "InstanceIdNotFound"
    status = next(n["InstanceStatus"] for n in world.nodes() if n["InstanceId"] == first)
    assert status == {"Status": "Pending", "Message": "Rebooting"}

    replaced = world.sagemaker.batch_replace_cluster_nodes(ClusterName="hp", NodeIds=[second, unknown])
    assert replaced["Successful"] == [second]
    assert replaced["Failed"][0]["ErrorCode"] == "InstanceIdNotFound"

    deleted = world.sagemaker.batch_delete_cluster_nodes(ClusterName="hp", NodeIds=[third, unknown])
    assert deleted["Successful"] == [third]
    assert deleted["Failed"] == [{"Code": "NodeIdNotFound", "Message": f"Node {unknown} not found.", "NodeId": unknown}]
    assert world.describe()["InstanceGroups"][0]["TargetCount"] == 2

    def settled() -> bool:
        ids = {n["InstanceId"] for n in world.nodes()}
        return len(ids) == 2 and second not in ids and third not in ids

    wait_until(settled)
    ids = {n["InstanceId"] for n in world.nodes()}
    assert first in ids
    assert set(world.kubernetes_nodes()) == {f"hyperpod-{i}" for i in ids}
    assert next(n["InstanceStatus"] for n in world.nodes() if n["InstanceId"] == first) == {"Status": "Running"}


def test_software_update_runs_while_the_cluster_is_system_updating(world: World) -> None:
    world.create()
    world.wait_for("hp")

    world.sagemaker.update_cluster_software(ClusterName="hp")

    updating = world.describe()
    assert updating["ClusterStatus"] == "SystemUpdating"
    assert updating["InstanceGroups"][0]["SoftwareUpdateStatus"] == "InProgress"
    done = world.wait_for("hp")
    group = done["InstanceGroups"][0]
    assert group["SoftwareUpdateStatus"] == "Succeeded"
    assert group["CurrentImageReleaseVersion"] == group["DesiredImageReleaseVersion"] == "1.0.1"
    assert all("LastSoftwareUpdateTime" in n for n in world.nodes())


def test_continuous_clusters_stay_in_service_while_scaling(world: World) -> None:
    world.create(NodeProvisioningMode="Continuous")
    world.wait_for("hp")

    world.sagemaker.update_cluster(ClusterName="hp", InstanceGroups=[world.group(count=4)])

    scaling = world.describe()
    assert scaling["ClusterStatus"] == "InService"
    assert scaling["InstanceGroups"][0]["Status"] == "InService"
    assert scaling["InstanceGroups"][0]["ActiveOperations"] == {"Scaling": 1}
    assert scaling["InstanceGroups"][0]["TargetCount"] == 4
    wait_until(lambda: world.describe()["InstanceGroups"][0]["CurrentCount"] == 4)
    assert "ActiveOperations" not in world.describe()["InstanceGroups"][0]
    assert len(world.kubernetes_nodes()) == 4


def test_an_unhealthy_node_is_relabelled_and_replaced_under_automatic_recovery(world: World) -> None:
    world.create()
    world.wait_for("hp")
    victim = world.nodes()[0]["InstanceId"]

    world.hyperpod.mark_node_unhealthy("hp", victim)

    labels = world.kubernetes_nodes()[f"hyperpod-{victim}"]["metadata"]["labels"]
    assert labels[HEALTH_LABEL] == "UnschedulablePendingReplacement"
    wait_until(lambda: victim not in {n["InstanceId"] for n in world.nodes()} and len(world.nodes()) == 2)
    assert f"hyperpod-{victim}" not in world.kubernetes_nodes()


def test_deleting_a_cluster_removes_its_nodes_then_it_is_not_found(world: World) -> None:
    arn = world.create()
    world.wait_for("hp")
    assert len(world.kubernetes_nodes()) == 2

    world.sagemaker.delete_cluster(ClusterName="hp")

    assert world.describe()["ClusterStatus"] == "Deleting"

    def gone() -> bool:
        try:
            world.describe()
        except ClientError as error:
            return error.response["Error"]["Code"] == "ResourceNotFound"
        return False

    wait_until(gone)
    assert world.kubernetes_nodes() == {}
    with pytest.raises(ClientError) as error:
        world.sagemaker.list_cluster_nodes(ClusterName="hp")
    assert error_code(error) == "ResourceNotFound"
    assert "hp" in error.value.response["Error"]["Message"]
    # The tags of a cluster deleted since it was described: moto itself failed on the ARN (an AttributeError).
    with pytest.raises(ClientError) as error:
        world.sagemaker.list_tags(ResourceArn=arn)
    assert error_code(error) == "ResourceNotFound"


def test_clusters_are_listed_oldest_first_in_pages_and_found_by_name_or_arn(world: World) -> None:
    arns = [world.create(name=name) for name in ("beta", "alpha", "gamma")]

    pages = world.sagemaker.get_paginator("list_clusters").paginate(PaginationConfig={"PageSize": 2})
    assert [c["ClusterName"] for page in pages for c in page["ClusterSummaries"]] == ["beta", "alpha", "gamma"]
    assert world.sagemaker.describe_cluster(ClusterName=arns[0])["ClusterName"] == "beta"
    assert world.sagemaker.list_tags(ResourceArn=arns[0])["Tags"] == [{"Key": "team", "Value": "ml"}]


def test_describing_a_node_answers_from_the_simulation_and_unknown_nodes_are_not_found(world: World) -> None:
    world.create()
    world.wait_for("hp")
    summary = world.nodes()[0]

    details = world.sagemaker.describe_cluster_node(ClusterName="hp", NodeId=summary["InstanceId"])["NodeDetails"]

    assert {key: details[key] for key in ("InstanceId", "InstanceGroupName", "InstanceType", "InstanceStatus")} == {
        key: summary[key] for key in ("InstanceId", "InstanceGroupName", "InstanceType", "InstanceStatus")
    }
    with pytest.raises(ClientError) as error:
        world.sagemaker.describe_cluster_node(ClusterName="hp", NodeId="i-0123456789abcdef0")
    assert error.value.response["Error"]["Code"] == "ResourceNotFound"


def _undeclared(value: Any, shape: Any, path: str) -> list[str]:
    if shape.type_name == "structure":
        problems = [f"{path}.{key}" for key in value if key not in shape.members]
        for key, member in shape.members.items():
            if key in value:
                problems += _undeclared(value[key], member, f"{path}.{key}")
        return problems
    if shape.type_name == "list":
        return [p for item in value for p in _undeclared(item, shape.member, f"{path}[]")]
    if shape.type_name == "map":
        return [p for key, item in value.items() for p in _undeclared(item, shape.value, f"{path}.{key}")]
    return []


def test_every_response_field_is_declared_in_the_botocore_output_shape(world: World) -> None:
    plan = world.hyperpod.add_training_plan(REGION, "plan", "ml.g6.4xlarge", 2, f"{REGION}a")
    world.create(
        groups=[
            world.group(TrainingPlanArn=plan, InstanceStorageConfigs=[{"EbsVolumeConfig": {"VolumeSizeInGB": 100}}])
        ],
        NodeProvisioningMode="Continuous",
        ClusterRole=world.role_arn,
        AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"},
    )
    world.wait_for("hp")
    node_id = world.nodes()[0]["InstanceId"]
    world.sagemaker.update_cluster_software(ClusterName="hp")
    world.sagemaker.update_cluster(ClusterName="hp", InstanceGroups=[world.group(count=2, TrainingPlanArn=plan)])
    model = world.sagemaker.meta.service_model
    requests = {
        "DescribeCluster": {"ClusterName": "hp"},
        "ListClusters": {},
        "ListClusterNodes": {"ClusterName": "hp"},
        "BatchRebootClusterNodes": {"ClusterName": "hp", "NodeIds": [node_id, "i-00000000"]},
        "BatchDeleteClusterNodes": {"ClusterName": "hp", "NodeIds": ["i-00000000"]},
        "ListTags": {"ResourceArn": world.describe()["ClusterArn"]},
        "ListTrainingPlans": {},
        "DescribeTrainingPlan": {"TrainingPlanName": plan},
    }
    for action, request in requests.items():
        body, headers = world.extension.handle(action, ("123456789012", REGION), request)
        assert headers["status"] == 200, body
        shape = model.operation_model(action).output_shape
        assert _undeclared(json.loads(body), shape, action) == []


def test_karpenter_kinds_are_served_while_autoscaling_is_enabled_and_its_cluster_role_is_then_fixed(
    world: World,
) -> None:
    world.create(name="auto", NodeProvisioningMode="Continuous")
    world.wait_for("auto")

    def crds() -> set[str]:
        listed = world.emulator.store("ml-eks").list("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        return {crd["metadata"]["name"] for crd in listed}

    karpenter = {"hyperpodnodeclasses.karpenter.sagemaker.amazonaws.com", "nodepools.karpenter.sh"}
    world.sagemaker.update_cluster(
        ClusterName="auto", ClusterRole=world.role_arn, AutoScaling={"Mode": "Enable", "AutoScalerType": "Karpenter"}
    )
    assert world.describe("auto")["AutoScaling"]["Status"] == "Creating"
    wait_until(lambda: world.describe("auto")["AutoScaling"]["Status"] == "InService")
    assert karpenter <= crds()
    with pytest.raises(ClientError) as refused:
        world.sagemaker.update_cluster(ClusterName="auto", ClusterRole=world.role_arn + "-other")
    assert error_code(refused) == "ValidationException"

    world.sagemaker.update_cluster(ClusterName="auto", AutoScaling={"Mode": "Disable"})
    assert world.describe("auto")["AutoScaling"]["Status"] == "Deleting"
    wait_until(lambda: world.describe("auto")["AutoScaling"]["Status"] == "InService")
    assert not karpenter & crds()


# --- task governance: compute quotas --------------------------------------------------------------------------------


def quota_request(cluster_arn: str, team: str = "ml-a", count: int = 1, **extra: Any) -> dict[str, Any]:
    return {
        "Name": f"{team}-quota",
        "ClusterArn": cluster_arn,
        "ComputeQuotaConfig": {
            "ComputeQuotaResources": [{"InstanceType": "ml.g5.xlarge", "Count": count}],
            "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 50},
            "PreemptTeamTasks": "LowerPriority",
        },
        "ComputeQuotaTarget": {"TeamName": team, "FairShareWeight": 10},
        **extra,
    }


def test_a_compute_quota_is_created_listed_described_updated_and_deleted(world: World) -> None:
    arn = world.create(groups=[world.group(InstanceType="ml.g5.xlarge")])
    created = world.sagemaker.create_compute_quota(**quota_request(arn))
    quota_id = created["ComputeQuotaId"]
    described = world.sagemaker.describe_compute_quota(ComputeQuotaId=quota_id)
    assert (described["Status"], described["ComputeQuotaVersion"], described["ActivationState"]) == (
        "Created",
        1,
        "Enabled",
    )
    assert described["ComputeQuotaTarget"] == {"TeamName": "ml-a", "FairShareWeight": 10}
    listed = world.sagemaker.list_compute_quotas(ClusterArn=arn)["ComputeQuotaSummaries"]
    assert [q["ComputeQuotaId"] for q in listed] == [quota_id]
    updated = world.sagemaker.update_compute_quota(ComputeQuotaId=quota_id, TargetVersion=1, ActivationState="Disabled")
    assert updated["ComputeQuotaVersion"] == 2
    assert world.sagemaker.describe_compute_quota(ComputeQuotaId=quota_id)["Status"] == "Updated"
    world.sagemaker.delete_compute_quota(ComputeQuotaId=quota_id)
    with pytest.raises(ClientError) as error:
        world.sagemaker.describe_compute_quota(ComputeQuotaId=quota_id)
    assert error_code(error) == "ResourceNotFound"


def test_a_new_compute_quota_makes_its_team_namespace_in_the_cluster_which_outlives_it(world: World) -> None:
    arn = world.create(groups=[world.group(InstanceType="ml.g5.xlarge")])
    store = world.emulator.store("ml-eks")
    assert store.get("", "v1", "namespaces", None, "hyperpod-ns-ml-ns") is None
    quota_id = world.sagemaker.create_compute_quota(**quota_request(arn, team="ml-ns"))["ComputeQuotaId"]
    assert store.get("", "v1", "namespaces", None, "hyperpod-ns-ml-ns") is not None
    world.sagemaker.delete_compute_quota(ComputeQuotaId=quota_id)
    assert store.get("", "v1", "namespaces", None, "hyperpod-ns-ml-ns") is not None


def test_compute_quotas_are_refused_as_sagemaker_refuses_them(world: World) -> None:
    arn = world.create(groups=[world.group(InstanceType="ml.g5.xlarge")])
    world.sagemaker.create_compute_quota(**quota_request(arn))
    with pytest.raises(ClientError) as error:
        world.sagemaker.create_compute_quota(**quota_request(arn))
    assert error_code(error) == "ConflictException"
    other_type = quota_request(arn, team="ml-b")
    other_type["ComputeQuotaConfig"]["ComputeQuotaResources"][0]["InstanceType"] = "ml.p5.48xlarge"
    with pytest.raises(ClientError) as error:
        world.sagemaker.create_compute_quota(**other_type)
    assert error_code(error) == "ValidationException"
    with pytest.raises(ClientError) as error:
        world.sagemaker.create_compute_quota(**quota_request(arn.replace(arn.rsplit("/", 1)[1], "000000000000")))
    assert error_code(error) == "ResourceNotFound"
    quota_id = world.sagemaker.list_compute_quotas(ClusterArn=arn)["ComputeQuotaSummaries"][0]["ComputeQuotaId"]
    with pytest.raises(ClientError) as error:
        world.sagemaker.update_compute_quota(ComputeQuotaId=quota_id, TargetVersion=7, ActivationState="Disabled")
    assert error_code(error) == "ConflictException"


SCHEDULER = {
    "PriorityClasses": [{"Name": "inference", "Weight": 90}, {"Name": "training", "Weight": 50}],
    "FairShare": "Enabled",
}


def test_a_cluster_has_one_scheduler_config_updated_by_version_and_deleted(world: World) -> None:
    arn = world.create()
    created = world.sagemaker.create_cluster_scheduler_config(Name="policy", ClusterArn=arn, SchedulerConfig=SCHEDULER)
    config_id = created["ClusterSchedulerConfigId"]
    with pytest.raises(ClientError) as error:
        world.sagemaker.create_cluster_scheduler_config(Name="again", ClusterArn=arn, SchedulerConfig=SCHEDULER)
    assert error_code(error) == "ConflictException"
    listed = world.sagemaker.list_cluster_scheduler_configs(ClusterArn=arn)["ClusterSchedulerConfigSummaries"]
    assert [(c["ClusterSchedulerConfigId"], c["Status"]) for c in listed] == [(config_id, "Created")]
    with pytest.raises(ClientError) as error:
        world.sagemaker.update_cluster_scheduler_config(
            ClusterSchedulerConfigId=config_id, TargetVersion=2, SchedulerConfig=SCHEDULER
        )
    assert error_code(error) == "ConflictException"
    changed = {**SCHEDULER, "FairShare": "Disabled"}
    updated = world.sagemaker.update_cluster_scheduler_config(
        ClusterSchedulerConfigId=config_id, TargetVersion=1, SchedulerConfig=changed
    )
    assert updated["ClusterSchedulerConfigVersion"] == 2
    described = world.sagemaker.describe_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)
    assert (described["Status"], described["SchedulerConfig"]) == ("Updated", changed)
    world.sagemaker.delete_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)
    assert world.sagemaker.list_cluster_scheduler_configs(ClusterArn=arn)["ClusterSchedulerConfigSummaries"] == []


def test_the_add_ons_kueue_objects_follow_the_teams_quotas_and_the_scheduler_configs_priority_classes(
    world: World,
) -> None:
    arn = world.create(groups=[world.group(InstanceType="ml.g5.xlarge")])
    store = world.emulator.store("ml-eks")
    quota_id = world.sagemaker.create_compute_quota(**quota_request(arn, team="ml-q", count=2))["ComputeQuotaId"]
    namespace = store.get("", "v1", "namespaces", None, "hyperpod-ns-ml-q")
    assert namespace["metadata"]["labels"]["sagemaker.amazonaws.com/quota-allocation-id"] == "ml-q"
    queue = store.get("kueue.x-k8s.io", "v1beta1", "clusterqueues", None, "hyperpod-ns-ml-q-clusterqueue")
    flavor = queue["spec"]["resourceGroups"][0]["flavors"][0]
    gpus = next(r for r in flavor["resources"] if r["name"] == "nvidia.com/gpu")
    assert (flavor["name"], gpus["nominalQuota"], gpus["borrowingLimit"]) == ("ml.g5.xlarge", "2", "1")
    local = store.get("kueue.x-k8s.io", "v1beta1", "localqueues", "hyperpod-ns-ml-q", "hyperpod-ns-ml-q-localqueue")
    assert local["spec"]["clusterQueue"] == "hyperpod-ns-ml-q-clusterqueue"
    assert store.get("kueue.x-k8s.io", "v1beta1", "resourceflavors", None, "ml.g5.xlarge") is not None
    changed = {
        **quota_request(arn)["ComputeQuotaConfig"],
        "ComputeQuotaResources": [{"InstanceType": "ml.g5.xlarge", "Count": 1}],
    }
    world.sagemaker.update_compute_quota(ComputeQuotaId=quota_id, TargetVersion=1, ComputeQuotaConfig=changed)
    queue = store.get("kueue.x-k8s.io", "v1beta1", "clusterqueues", None, "hyperpod-ns-ml-q-clusterqueue")
    gpus = next(
        r for r in queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"] if r["name"] == "nvidia.com/gpu"
    )
    assert gpus["nominalQuota"] == "1"
    world.sagemaker.delete_compute_quota(ComputeQuotaId=quota_id)
    assert store.get("kueue.x-k8s.io", "v1beta1", "clusterqueues", None, "hyperpod-ns-ml-q-clusterqueue") is None
    assert store.list("kueue.x-k8s.io", "v1beta1", "localqueues", "hyperpod-ns-ml-q") == []
    config_id = world.sagemaker.create_cluster_scheduler_config(Name="p", ClusterArn=arn, SchedulerConfig=SCHEDULER)[
        "ClusterSchedulerConfigId"
    ]
    classes = store.list("kueue.x-k8s.io", "v1beta1", "workloadpriorityclasses")
    assert sorted((c["metadata"]["name"], c["value"]) for c in classes) == [
        ("inference-priority", 90),
        ("training-priority", 50),
    ]
    fewer = {**SCHEDULER, "PriorityClasses": [{"Name": "training", "Weight": 40}]}
    world.sagemaker.update_cluster_scheduler_config(
        ClusterSchedulerConfigId=config_id, TargetVersion=1, SchedulerConfig=fewer
    )
    classes = store.list("kueue.x-k8s.io", "v1beta1", "workloadpriorityclasses")
    assert [(c["metadata"]["name"], c["value"]) for c in classes] == [("training-priority", 40)]
    world.sagemaker.delete_cluster_scheduler_config(ClusterSchedulerConfigId=config_id)
    assert store.list("kueue.x-k8s.io", "v1beta1", "workloadpriorityclasses") == []
