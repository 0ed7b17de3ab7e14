"""The instance-group requests the HyperPod adapter builds, checked against botocore's SageMaker model:
the capacity fields of aws-facts §1.2, and the normalizer that resends a live group without losing a field."""

from __future__ import annotations

import copy

import botocore.session
import pytest
from botocore.validate import ParamValidator

from controlplane.adapters.aws.sagemaker import _group, changed_group
from controlplane.core.ports.hyperpod import GroupChange, InstanceGroupSpec, Taint

MODEL = botocore.session.get_session().get_service_model("sagemaker")
ROLE = "arn:aws:iam::123456789012:role/instantstart-demo-hyperpod-exec"
PLAN = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/plan-b"
BASE = {
    "execution_role_arn": ROLE,
    "lifecycle_uri": "s3://sagemaker-is-demo-123456789012-us-west-2/lifecycle/",
    "ebs_volume_gb": 500,
}


def valid_update(groups: list[dict]) -> None:
    """Raise if UpdateCluster with these groups does not match botocore's request shape."""
    report = ParamValidator().validate(
        {"ClusterName": "hp-cluster-demo", "InstanceGroups": groups}, MODEL.operation_model("UpdateCluster").input_shape
    )
    assert not report.has_errors(), report.generate_report()


def test_spot_training_plan_and_efa_only_groups_carry_exactly_their_capacity_fields():
    spot = _group(
        InstanceGroupSpec(
            name="spot",
            instance_type="ml.g6.4xlarge",
            count=2,
            threads_per_core=1,
            deep_health_checks=True,
            capacity_type="spot",
            **BASE,
        ),
        ("sg-1",),
    )
    reserved = _group(
        InstanceGroupSpec(
            name="reserved",
            instance_type="ml.g6.4xlarge",
            count=1,
            threads_per_core=1,
            deep_health_checks=False,
            capacity_type="training-plan",
            training_plan_arn=PLAN,
            subnet_ids=("subnet-b",),
            **BASE,
        ),
        ("sg-1",),
    )
    efa_only = _group(
        InstanceGroupSpec(
            name="p5",
            instance_type="ml.p5.48xlarge",
            count=1,
            threads_per_core=2,
            deep_health_checks=True,
            capacity_type="on-demand",
            network_interface="efa-only",
            min_count=1,
            labels={"team": "research"},
            **BASE,
        ),
        ("sg-1",),
    )
    valid_update([spot, reserved, efa_only])
    assert spot["CapacityRequirements"] == {"Spot": {}} and "TrainingPlanArn" not in spot
    assert spot["OnStartDeepHealthChecks"] == ["InstanceStress", "InstanceConnectivity"]
    assert reserved["TrainingPlanArn"] == PLAN and "CapacityRequirements" not in reserved
    assert reserved["OverrideVpcConfig"] == {"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-b"]}
    assert efa_only["NetworkInterface"] == {"InterfaceType": "efa-only"}
    assert (efa_only["ThreadsPerCore"], efa_only["MinInstanceCount"]) == (2, 1)
    assert efa_only["KubernetesConfig"] == {"Labels": {"team": "research"}, "Taints": []}


# A group as DescribeCluster reports it, with every field a resend must keep.
LIVE = {
    "InstanceGroupName": "p5",
    "InstanceType": "ml.p5.48xlarge",
    "CurrentCount": 4,
    "TargetCount": 4,
    "MinCount": 2,
    "Status": "InService",
    "ExecutionRole": ROLE,
    "LifeCycleConfig": {"SourceS3Uri": BASE["lifecycle_uri"], "OnCreate": "on_create.sh"},
    "ThreadsPerCore": 2,
    "InstanceStorageConfigs": [{"EbsVolumeConfig": {"VolumeSizeInGB": 1000}}],
    "OnStartDeepHealthChecks": ["InstanceStress", "InstanceConnectivity"],
    "TrainingPlanArn": PLAN,
    "TrainingPlanStatus": "Active",
    "OverrideVpcConfig": {"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-b"]},
    "ScheduledUpdateConfig": {"ScheduleExpression": "cron(0 3 ? * SUN *)"},
    "AutoPatchConfig": {
        "PatchingStrategy": "WhenIdle",
        "CurrentPatchSchedule": {"NextPatchDate": "2026-12-06T03:00:00Z"},
        "DesiredPatchSchedule": {"NextPatchDate": "2026-12-13T03:00:00Z"},
        "IdleWaitWindowInSeconds": 7200,
    },
    "CurrentImageId": "ami-0a1b2c3d4e5f67890",
    "DesiredImageId": "ami-0a1b2c3d4e5f67890",
    "CurrentImageReleaseVersion": "1.0.0",
    "DesiredImageReleaseVersion": "1.0.0",
    "ImageVersionStatus": "UpToDate",
    "KubernetesConfig": {
        "CurrentLabels": {"team": "a"},
        "DesiredLabels": {"team": "a"},
        "CurrentTaints": [],
        "DesiredTaints": [],
    },
    "CapacityRequirements": {"OnDemand": {}},
    "NetworkInterface": {"InterfaceType": "efa-only"},
    "ActiveOperations": {"Scaling": 1},
    "TargetStateCount": 4,
}
KEPT = {
    "InstanceGroupName": "p5",
    "InstanceType": "ml.p5.48xlarge",
    "InstanceCount": 4,
    "MinInstanceCount": 2,
    "ExecutionRole": ROLE,
    "LifeCycleConfig": LIVE["LifeCycleConfig"],
    "ThreadsPerCore": 2,
    "InstanceStorageConfigs": LIVE["InstanceStorageConfigs"],
    "OnStartDeepHealthChecks": LIVE["OnStartDeepHealthChecks"],
    "TrainingPlanArn": PLAN,
    "OverrideVpcConfig": LIVE["OverrideVpcConfig"],
    "ScheduledUpdateConfig": LIVE["ScheduledUpdateConfig"],
    "AutoPatchConfig": {
        "PatchingStrategy": "WhenIdle",
        "PatchSchedule": {"NextPatchDate": "2026-12-13T03:00:00Z"},
        "IdleWaitWindowInSeconds": 7200,
    },
    "ImageId": "ami-0a1b2c3d4e5f67890",
    "ImageReleaseVersion": "1.0.0",
    "KubernetesConfig": {"Labels": {"team": "a"}, "Taints": []},
    "CapacityRequirements": {"OnDemand": {}},
    "NetworkInterface": {"InterfaceType": "efa-only"},
}


def test_a_resend_without_changes_keeps_every_field():
    spec = changed_group(copy.deepcopy(LIVE), GroupChange())
    valid_update([spec])
    assert spec == KEPT


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (GroupChange(count=8), {"InstanceCount": 8}),
        (GroupChange(min_count=0), {"MinInstanceCount": 0}),
        (GroupChange(labels={"team": "b"}), {"KubernetesConfig": {"Labels": {"team": "b"}, "Taints": []}}),
        (
            GroupChange(taints=(Taint("gpu", None, "NoSchedule"),), deep_health_checks=False),
            {"KubernetesConfig": {"Labels": {"team": "a"}, "Taints": [{"Key": "gpu", "Effect": "NoSchedule"}]}},
        ),
    ],
)
def test_a_change_touches_only_its_own_fields(change, expected):
    spec = changed_group(copy.deepcopy(LIVE), change)
    valid_update([spec])
    differing = {key for key in {*spec, *KEPT} if spec.get(key) != KEPT.get(key)}
    if change.deep_health_checks is False:
        assert "OnStartDeepHealthChecks" not in spec
        differing.discard("OnStartDeepHealthChecks")
    assert {key: spec[key] for key in differing} == expected
