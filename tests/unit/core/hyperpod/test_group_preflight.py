"""Adding or growing a group runs the pre-flight for the instances it adds: a failing check starts nothing, a
scale-down or a change without growth reads no quota."""

from __future__ import annotations

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.models.errors import PreflightFailedError
from controlplane.models.instance_groups import AddInstanceGroupRequest, UpdateInstanceGroupRequest
from tests.unit.core.hyperpod.world import World

ADMIN = Actor("alice", Role.ADMIN)
HP = "hp-cluster-demo"
GPU = InstanceGroup(
    name="gpu",
    instance_type="ml.g6.4xlarge",
    status="InService",
    current_count=2,
    target_count=2,
    subnet_ids=("subnet-a",),
)


@pytest.fixture
def world() -> World:
    world = World()
    world.register()
    world.hyperpod.put_cluster(HP, (GPU,), subnet_ids=("subnet-a",), tags={"instantstart:cluster": "demo"})
    world.eks.add_cluster("eks-cluster-demo")
    world.quotas.instances = {"ml.g6.4xlarge": 2}
    world.quotas.free_addresses = {"subnet-a": 100}
    return world


def test_scaling_up_beyond_the_quota_counts_only_the_added_instances_and_starts_nothing(world):
    world.quotas.set_quota("sagemaker", "ml.g6.4xlarge for cluster usage", 4)
    service = world.instance_groups()
    checks = service.plan_update("demo", "gpu", UpdateInstanceGroupRequest(instanceCount=4), ADMIN).checks
    assert [(c.status, c.need) for c in checks] == [("warn", 2), ("pass", 2)]
    with pytest.raises(PreflightFailedError):
        service.update("demo", "gpu", UpdateInstanceGroupRequest(instanceCount=5), None, ADMIN)
    assert world.launcher.started == []


def test_scaling_up_beyond_the_groups_subnet_addresses_is_refused(world):
    world.quotas.set_quota("sagemaker", "ml.g6.4xlarge for cluster usage", 1000)
    with pytest.raises(PreflightFailedError, match="addresses: subnet-a"):
        world.instance_groups().update("demo", "gpu", UpdateInstanceGroupRequest(instanceCount=200), None, ADMIN)


def test_scaling_down_reads_no_quota(world):
    service, request = world.instance_groups(), UpdateInstanceGroupRequest(instanceCount=1)
    plan = service.update("demo", "gpu", request, None, ADMIN)
    service.update("demo", "gpu", request, plan.confirmationToken, ADMIN)
    assert world.quotas.reads == []
    assert len(world.launcher.started) == 1


def test_adding_a_group_beyond_the_quota_is_refused_and_its_plan_lists_the_failure(world):
    request = AddInstanceGroupRequest(
        instanceGroupName="more", instanceType="ml.g6.4xlarge", instanceCount=9, availabilityZone="us-west-2c"
    )
    plan = world.instance_groups().plan_add("demo", request)
    assert {c.check: c.status for c in plan.checks}["quota: ml.g6.4xlarge for cluster usage"] == "fail"
    with pytest.raises(PreflightFailedError):
        world.instance_groups().add("demo", request, ADMIN)
    assert world.launcher.started == []
