"""Drift of one cluster: the recorded state (replayed from its operations) against in-memory fakes of live state."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from controlplane.core.drift.service import DriftService
from controlplane.core.naming import observability_role_name, ownership_tags
from controlplane.core.ports.hyperpod import GroupChange, HyperPodClusterSpec, InstanceGroupSpec
from controlplane.models.errors import ClusterNotFoundError, ClusterNotReadyError, NotFoundError
from controlplane.models.operations import Operation, OperationKind, OperationStatus, Stage
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.hyperpod import InMemoryHyperPodGateway
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.persistence import (
    FakeClock,
    InMemoryClusterRegistry,
    InMemoryDriftReportStore,
    InMemoryOperationRepository,
)
from tests.unit.records import cluster_record

PINS = {"cert-manager": "v1.18.2-eksbuild.1", "amazon-sagemaker-hyperpod-observability": "v1.1.0-eksbuild.1"}
HP = "hp-cluster-demo"
GROUP = {
    "availabilityZone": "us-west-2b",
    "instanceType": "ml.g5.8xlarge",
    "instanceCount": 4,
    "capacityType": "on-demand",
    "ebsVolumeSizeGb": 500,
    "instanceGroupName": "workers",
    "deepHealthChecks": False,
    "dedicatedSubnet": False,
    "threadsPerCore": 1,
    "labels": {"team": "ml"},
}


class World:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.registry = InMemoryClusterRegistry(cluster_record("eks", "dependencies", "hyperpod", at=self.clock.now()))
        self.operations = InMemoryOperationRepository()
        self.reports = InMemoryDriftReportStore()
        self.eks = InMemoryEksGateway()
        self.hyperpod = InMemoryHyperPodGateway()
        self.iam = InMemoryIamGateway()
        self.kubernetes = InMemoryKubernetesGateway()
        self.eks.add_cluster("eks-cluster-demo", tags=ownership_tags(DEPLOYMENT, "demo"))
        self.service = DriftService(
            self.registry,
            self.operations,
            self.reports,
            self.eks_in,
            lambda region: self.hyperpod,
            self.iam,
            self.kubernetes,
            PINS,
            {"cert-manager": PINS["cert-manager"]},
            self.clock,
            DEPLOYMENT,
        )
        self._count = 0
        # Regions whose EKS API cannot be reached.
        self.unreachable: set[str] = set()

    def eks_in(self, region: str) -> InMemoryEksGateway:
        if region in self.unreachable:
            raise ClusterNotReadyError(f"EKS is unreachable in {region}.")
        return self.eks

    def operation(
        self, kind: OperationKind, status: OperationStatus = OperationStatus.SUCCEEDED, **input: Any
    ) -> Operation:
        self._count += 1
        self.clock.sleep(60)
        operation = Operation(
            operationId=f"op-{self._count:08d}",
            kind=kind,
            target="demo",
            incarnation="inc-1",
            status=status,
            stages=[Stage(name="only")],
            actor="alice",
            createdAt=self.clock.now(),
            updatedAt=self.clock.now(),
            input=input,
        )
        self.operations.create(operation)
        return operation

    def hyperpod_cluster(self, count: int = 4) -> None:
        """The HyperPod cluster as the control plane created it, with its group at `count` instances."""
        spec = InstanceGroupSpec(
            name="workers",
            instance_type="ml.g5.8xlarge",
            count=count,
            execution_role_arn="arn:aws:iam::123456789012:role/exec",
            lifecycle_uri="s3://lifecycle/",
            threads_per_core=1,
            ebs_volume_gb=500,
            deep_health_checks=False,
            capacity_type="on-demand",
            labels={"team": "ml"},
        )
        self.hyperpod.create_cluster(
            HyperPodClusterSpec(HP, "arn:eks", (), (), (spec,), tags=ownership_tags(DEPLOYMENT, "demo"))
        )


@pytest.fixture
def world() -> World:
    w = World()
    w.operation(OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES)
    w.eks.add_addon("eks-cluster-demo", "cert-manager")
    w.eks.addons[("eks-cluster-demo", "cert-manager")] = replace(
        w.eks.addons[("eks-cluster-demo", "cert-manager")], version=PINS["cert-manager"]
    )
    w.operation(OperationKind.CREATE_HYPERPOD_CLUSTER, hyperpod=GROUP)
    w.hyperpod_cluster()
    return w


def paths(world: World) -> dict[str, Any]:
    return {finding.path: (finding.recorded, finding.live) for finding in world.service.check("demo").findings}


def test_cluster_as_recorded_is_in_sync(world: World) -> None:
    report = world.service.check("demo")

    assert report.inSync
    assert report.findings == []
    assert world.service.last("demo") == report


def test_group_count_changed_out_of_band_is_drift_at_its_field_path(world: World) -> None:
    world.hyperpod.update_group(HP, "workers", replace_count(2))

    assert paths(world) == {"instanceGroups[workers].instanceCount": (4, 2)}


def test_a_count_changed_through_the_api_is_recorded_not_drift(world: World) -> None:
    world.hyperpod.update_group(HP, "workers", replace_count(6))
    world.operation(
        OperationKind.UPDATE_INSTANCE_GROUP, instanceGroup={"instanceGroupName": "workers", "instanceCount": 6}
    )

    assert paths(world) == {}


def test_unmanaged_fields_are_not_drift(world: World) -> None:
    cluster = world.hyperpod.clusters[HP]
    group = cluster.groups[0]
    unmanaged = replace(group, status="Updating", current_count=1, labels={**group.labels, "extra": "x"})
    world.hyperpod.clusters[HP] = replace(cluster, groups=(unmanaged,), tags={**cluster.tags, "cost-center": "42"})
    world.eks.add_addon("eks-cluster-demo", "metrics-server")

    assert paths(world) == {}


def test_a_deleted_feature_role_is_drift_of_the_feature(world: World) -> None:
    world.operation(OperationKind.UPDATE_CLUSTER_FEATURES, features={"observability": {"change": "enable"}})
    world.eks.add_addon("eks-cluster-demo", "amazon-sagemaker-hyperpod-observability")
    world.eks.addons[("eks-cluster-demo", "amazon-sagemaker-hyperpod-observability")] = replace(
        world.eks.addons[("eks-cluster-demo", "amazon-sagemaker-hyperpod-observability")],
        version=PINS["amazon-sagemaker-hyperpod-observability"],
    )
    role = observability_role_name(DEPLOYMENT, "demo")
    world.iam.create_role(role, {}, {}, "boundary")
    assert paths(world) == {}

    world.iam.delete_role(role)

    assert paths(world) == {"features.observability.role": (role, None)}


def test_a_disabled_feature_is_not_checked(world: World) -> None:
    world.operation(OperationKind.UPDATE_CLUSTER_FEATURES, features={"observability": {"change": "enable"}})
    world.operation(OperationKind.UPDATE_CLUSTER_FEATURES, features={"observability": {"change": "disable"}})

    assert paths(world) == {}


def test_addon_version_and_ownership_tag_changes_are_drift(world: World) -> None:
    key = ("eks-cluster-demo", "cert-manager")
    world.eks.addons[key] = replace(world.eks.addons[key], version="v1.19.0-eksbuild.1")
    eks = world.eks.clusters["eks-cluster-demo"]
    world.eks.clusters["eks-cluster-demo"] = replace(eks, tags={"instantstart:cluster": "demo"})

    found = paths(world)

    assert found["addons[cert-manager].version"] == (PINS["cert-manager"], "v1.19.0-eksbuild.1")
    assert found["tags.eksCluster[instantstart:managed-by]"] == ("instantstart", None)


def test_an_addon_at_the_version_installed_in_place_of_a_pin_eks_no_longer_offers_is_not_drift(world: World) -> None:
    key = ("eks-cluster-demo", "cert-manager")
    world.eks.offer("cert-manager", "v1.19.0-eksbuild.1", "v1.18.2-eksbuild.9", kubernetes="1.34")
    world.eks.addons[key] = replace(world.eks.addons[key], version="v1.18.2-eksbuild.9")
    assert "addons[cert-manager].version" not in paths(world)

    world.eks.addons[key] = replace(world.eks.addons[key], version="v1.19.0-eksbuild.1")
    assert paths(world)["addons[cert-manager].version"] == (PINS["cert-manager"], "v1.19.0-eksbuild.1")


def test_a_deleted_group_and_a_changed_type_are_drift(world: World) -> None:
    world.operation(OperationKind.ADD_INSTANCE_GROUP, hyperpod={**GROUP, "instanceGroupName": "extra"})
    cluster = world.hyperpod.clusters[HP]
    world.hyperpod.clusters[HP] = replace(cluster, groups=(replace(cluster.groups[0], instance_type="ml.g5.xlarge"),))

    assert paths(world) == {
        "instanceGroups[extra]": ("present", None),
        "instanceGroups[workers].instanceType": ("ml.g5.8xlarge", "ml.g5.xlarge"),
    }


def test_a_hyperpod_cluster_deleted_out_of_band_is_one_finding(world: World) -> None:
    del world.hyperpod.clusters[HP]

    assert paths(world) == {"hyperPodCluster": ("present", None)}


def test_groups_karpenter_scales_have_no_recorded_count(world: World) -> None:
    world.operation(
        OperationKind.UPDATE_CLUSTER_FEATURES,
        features={"karpenter": {"change": "enable", "instanceGroups": ["workers"]}},
    )
    world.iam.create_role(f"{DEPLOYMENT.name}-demo-karpenter", {}, {}, "boundary")
    world.hyperpod.update_group(HP, "workers", replace_count(9))

    assert "instanceGroups[workers].instanceCount" not in paths(world)


def test_operation_running_past_its_deadline_is_flagged_with_resume(world: World) -> None:
    running = world.operation(OperationKind.REBOOT_NODES, status=OperationStatus.RUNNING, nodes=[])
    assert world.service.check("demo").stuckOperations == []

    world.clock.sleep(timedelta(hours=2).total_seconds())
    report = world.service.check("demo")

    assert [stuck.operationId for stuck in report.stuckOperations] == [running.operationId]
    assert report.stuckOperations[0].resume == f"POST /operations/{running.operationId}/resume"
    assert not report.inSync


def test_check_all_reconciles_every_registered_cluster_and_names_those_that_failed(world: World) -> None:
    world.registry.create(cluster_record("eks", at=world.clock.now(), clusterTag="other"))
    world.registry.create(cluster_record("eks", at=world.clock.now(), clusterTag="broken", region="eu-west-1"))
    world.unreachable.add("eu-west-1")

    reports, failed = world.service.check_all()

    assert sorted(report.clusterTag for report in reports) == ["demo", "other"]
    assert failed == {"broken": "EKS is unreachable in eu-west-1."}
    assert set(world.reports.reports) == {"demo", "other"}


def test_unknown_cluster_is_not_found(world: World) -> None:
    with pytest.raises(ClusterNotFoundError):
        world.service.check("nope")


def test_last_report_before_any_check_says_how_to_run_one(world: World) -> None:
    with pytest.raises(NotFoundError, match="POST /clusters/demo/drift"):
        world.service.last("demo")


def replace_count(count: int) -> GroupChange:
    return GroupChange(count=count)
