"""The SageMaker adapter's translation between the wire (ClusterInstanceGroupDetails / Specification) and the
core's InstanceGroup, and its batching of node actions, with a recording stand-in for the boto3 client."""

from __future__ import annotations

from typing import Any

import pytest

from controlplane.adapters.aws import sagemaker
from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway, _group, changed_group, instance_group
from controlplane.core.ports.hyperpod import GroupChange, InstanceGroup, InstanceGroupSpec, Taint

ROLE = "arn:aws:iam::123456789012:role/instantstart-demo-hyperpod-exec"
PLAN = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/plan-b"
LIFECYCLE = "s3://sagemaker-is-demo-123456789012-us-west-2/lifecycle/"
SPECS = [
    InstanceGroupSpec(
        name="spot",
        instance_type="ml.g6.4xlarge",
        count=2,
        execution_role_arn=ROLE,
        lifecycle_uri=LIFECYCLE,
        threads_per_core=1,
        ebs_volume_gb=500,
        deep_health_checks=False,
        capacity_type="spot",
        labels={"team": "a"},
        taints=(Taint("gpu", None, "NoSchedule"), Taint("team", "a", "NoExecute")),
    ),
    InstanceGroupSpec(
        name="reserved",
        instance_type="ml.p5.48xlarge",
        count=1,
        execution_role_arn=ROLE,
        lifecycle_uri=LIFECYCLE,
        threads_per_core=2,
        ebs_volume_gb=1000,
        deep_health_checks=True,
        capacity_type="training-plan",
        training_plan_arn=PLAN,
        subnet_ids=("subnet-b",),
        min_count=1,
        network_interface="efa-only",
    ),
    InstanceGroupSpec(
        name="cpu",
        instance_type="ml.m5.xlarge",
        count=3,
        execution_role_arn=ROLE,
        lifecycle_uri=LIFECYCLE,
        threads_per_core=1,
        ebs_volume_gb=100,
        deep_health_checks=False,
        capacity_type="on-demand",
    ),
]


def described(request: dict[str, Any]) -> dict[str, Any]:
    """A requested group as DescribeCluster reports it once InService."""
    details = {key: value for key, value in request.items() if key not in ("InstanceCount", "MinInstanceCount")}
    details.update(Status="InService", CurrentCount=request["InstanceCount"], TargetCount=request["InstanceCount"])
    if "MinInstanceCount" in request:
        details["MinCount"] = request["MinInstanceCount"]
    if "KubernetesConfig" in request:
        kubernetes = request["KubernetesConfig"]
        details["KubernetesConfig"] = {
            "CurrentLabels": kubernetes["Labels"],
            "DesiredLabels": kubernetes["Labels"],
            "CurrentTaints": kubernetes["Taints"],
            "DesiredTaints": kubernetes["Taints"],
        }
    return details


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_a_created_group_reads_back_as_the_spec_it_was_created_from(spec):
    group = instance_group(described(_group(spec, ("sg-1",))))
    assert group == InstanceGroup(
        name=spec.name,
        instance_type=spec.instance_type,
        status="InService",
        current_count=spec.count,
        target_count=spec.count,
        min_count=spec.min_count,
        capacity_type=spec.capacity_type,
        training_plan_arn=spec.training_plan_arn,
        network_interface=spec.network_interface,
        subnet_ids=spec.subnet_ids,
        deep_health_checks=spec.deep_health_checks,
        ebs_volume_gb=spec.ebs_volume_gb,
        threads_per_core=spec.threads_per_core,
        labels=spec.labels,
        taints=spec.taints,
    )


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_a_resend_of_a_described_group_is_the_request_that_created_it(spec):
    request = _group(spec, ("sg-1",))
    assert changed_group(described(request), GroupChange()) == request


def test_live_state_fields_are_read_from_the_details():
    group = instance_group(
        {
            "InstanceGroupName": "gpu",
            "Status": "Updating",
            "CurrentCount": 2,
            "TargetCount": 4,
            "CurrentImageReleaseVersion": "1.0.0",
            "DesiredImageId": "ami-0a1b2c3d4e5f67890",
            "ImageVersionStatus": "UpToDate",
            "SoftwareUpdateStatus": "InProgress",
            "ActiveOperations": {"Scaling": 1},
            "CapacityRequirements": {"OnDemand": {}},
        }
    )
    assert (group.status, group.current_count, group.target_count) == ("Updating", 2, 4)
    assert (group.image_release_version, group.desired_image_id, group.image_up_to_date) == (
        "1.0.0",
        "ami-0a1b2c3d4e5f67890",
        True,
    )
    assert (group.software_update_status, group.scaling_operations, group.capacity_type) == (
        "InProgress",
        1,
        "on-demand",
    )


def test_a_group_with_only_a_name_reads_as_empty_on_demand_defaults():
    assert instance_group({"InstanceGroupName": "bare"}) == InstanceGroup(
        name="bare", instance_type=None, status=None, current_count=0, target_count=0
    )


class RecordingSageMaker:
    """The few SageMaker client calls the gateway makes, answered from canned responses."""

    def __init__(self, groups: list[dict[str, Any]] | None = None, failed: list[dict[str, str]] | None = None) -> None:
        self.groups = groups or []
        self.failed = failed or []
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def describe_cluster(self, **request: Any) -> dict[str, Any]:
        self.calls.append(("describe_cluster", request))
        return {
            "ClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc",
            "ClusterStatus": "InService",
            "InstanceGroups": self.groups,
            "VpcConfig": {"Subnets": ["subnet-a"], "SecurityGroupIds": ["sg-1"]},
            "Orchestrator": {"Eks": {"ClusterArn": "arn:eks"}},
            "NodeRecovery": "Automatic",
        }

    def list_tags(self, **request: Any) -> dict[str, Any]:
        return {"Tags": [{"Key": "instantstart:cluster", "Value": "demo"}]}

    def update_cluster(self, **request: Any) -> dict[str, Any]:
        self.calls.append(("update_cluster", request))
        return {}

    def _batch(self, name: str, request: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((name, request))
        ids = request["NodeIds"]
        failed = [item for item in self.failed if item["NodeId"] in ids]
        return {"Successful": [i for i in ids if i not in {item["NodeId"] for item in failed}], "Failed": failed}

    def batch_reboot_cluster_nodes(self, **request: Any) -> dict[str, Any]:
        return self._batch("batch_reboot_cluster_nodes", request)

    def batch_delete_cluster_nodes(self, **request: Any) -> dict[str, Any]:
        return self._batch("batch_delete_cluster_nodes", request)


@pytest.fixture
def stub(monkeypatch):
    def install(client: RecordingSageMaker) -> AwsHyperPodGateway:
        monkeypatch.setattr(sagemaker, "client", lambda service, region: client)
        return AwsHyperPodGateway("us-west-2")

    return install


def test_find_cluster_returns_typed_groups_and_cluster_settings(stub):
    live = described(_group(SPECS[0], ("sg-1",)))
    cluster = stub(RecordingSageMaker([live])).find_cluster("hp-cluster-demo")
    assert cluster is not None
    assert cluster.group("spot") == instance_group(live)
    assert (cluster.subnet_ids, cluster.eks_cluster_arn, cluster.settings) == (
        ("subnet-a",),
        "arn:eks",
        {"NodeRecovery": "Automatic"},
    )


def test_update_group_resends_the_live_group_with_only_the_change(stub):
    request = _group(SPECS[1], ("sg-1",))
    client = RecordingSageMaker([described(_group(SPECS[0], ("sg-1",))), described(request)])
    stub(client).update_group("hp-cluster-demo", "reserved", GroupChange(count=3))
    [(_, sent)] = [call for call in client.calls if call[0] == "update_cluster"]
    assert sent == {"ClusterName": "hp-cluster-demo", "InstanceGroups": [{**request, "InstanceCount": 3}]}


def test_update_of_a_group_that_is_gone_raises(stub):
    with pytest.raises(LookupError):
        stub(RecordingSageMaker([])).update_group("hp-cluster-demo", "gone", GroupChange(count=1))


@pytest.mark.parametrize(("action", "batch"), [("reboot", 25), ("delete", 99)])
def test_node_actions_are_sent_in_batches_of_the_apis_limit(stub, action, batch):
    ids = [f"i-{n:017x}" for n in range(batch + 3)]
    client = RecordingSageMaker(failed=[{"NodeId": ids[-1], "ErrorCode": "InstanceIdNotFound", "Message": "gone"}])
    outcome = stub(client).node_action("hp-cluster-demo", action, ids)
    assert [len(request["NodeIds"]) for _, request in client.calls] == [batch, 3]
    assert outcome.successful == tuple(ids[:-1])
    assert [(item.node_id, item.code, item.message) for item in outcome.failed] == [
        (ids[-1], "InstanceIdNotFound", "gone")
    ]
