"""The instance-group workflow steps against in-memory fakes: each observes first, acts only on the difference,
and judges completion from the group's counts."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from controlplane.core.naming import compute_subnet_key, hyperpod_execution_role_name, ownership_tags
from controlplane.core.ports.hyperpod import GroupChange, InstanceGroup, RollingUpdate, Taint
from controlplane.models.errors import (
    DependencyFailedError,
    InvalidRequestError,
    ResourceNotReadyError,
    WaitTimeoutError,
)
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.instance_groups import InstanceGroupChange, RollingPolicy, SoftwareUpdatePlan
from controlplane.models.operations import OperationKind
from controlplane.models.workflow import PollState, WorkflowInput, parse_input
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.hyperpod.world import ACCOUNT, REGION, TAG, World

HP = "hp-cluster-demo"
MORE = compute_subnet_key("us-west-2b", "more")
GPU = InstanceGroup(
    name="gpu",
    instance_type="ml.g6.4xlarge",
    status="InService",
    current_count=2,
    target_count=2,
    labels={"team": "a"},
    image_release_version="1.0.0",
    image_up_to_date=True,
)
PLAN = HyperPodPlan(
    availabilityZone="us-west-2b",
    instanceType="ml.g6.4xlarge",
    instanceCount=1,
    capacityType="spot",
    ebsVolumeSizeGb=200,
    instanceGroupName="more",
    deepHealthChecks=False,
    dedicatedSubnet=True,
    threadsPerCore=1,
    taints=[{"key": "gpu", "effect": "NoSchedule"}],
)


def add_subnet(world: World, key: str, cidr: str) -> str:
    """A subnet of the cluster's VPC, found by its key as the steps find it; returns its id."""
    vpc = world.network.find_vpc(TAG) or world.network.create_vpc(TAG, "10.1.0.0/16")
    return world.network.create_subnet(TAG, vpc.vpc_id, key, cidr, "us-west-2b", public=False).subnet_id


def ctx(kind: OperationKind, started: datetime | None = None, **parts: object) -> WorkflowInput:
    """The state of a workflow of `kind`; inside a wait loop that began at `started` when given."""
    return parse_input(
        {
            "operationId": "op-1",
            "kind": kind,
            "clusterTag": "demo",
            "incarnation": "inc-demo",
            "region": REGION,
            "accountId": ACCOUNT,
            "eksClusterName": "eks-cluster-demo",
            "hyperPodClusterName": HP,
            "imported": False,
            "poll": None if started is None else PollState(done=False, attempts=1, waitSeconds=0, startedAt=started),
            **parts,
        }
    )


def change(**fields: object) -> WorkflowInput:
    return ctx(
        OperationKind.UPDATE_INSTANCE_GROUP, instanceGroup=InstanceGroupChange(instanceGroupName="gpu", **fields)
    )


def deletion(name: str = "gpu", started: datetime | None = None) -> WorkflowInput:
    return ctx(OperationKind.DELETE_INSTANCE_GROUP, started, instanceGroup=InstanceGroupChange(instanceGroupName=name))


def software(image: str | None = None, started: datetime | None = None) -> WorkflowInput:
    plan = SoftwareUpdatePlan(instanceGroups=["gpu"], imageId=image, rollingPolicy=RollingPolicy())
    return ctx(OperationKind.UPDATE_CLUSTER_SOFTWARE, started, softwareUpdate=plan)


@pytest.fixture
def world() -> World:
    world = World()
    world.hyperpod.put_cluster(
        HP, (GPU,), subnet_ids=("subnet-a",), security_group_ids=("sg-1",), tags=ownership_tags(DEPLOYMENT, "demo")
    )
    world.iam.create_role(
        hyperpod_execution_role_name(DEPLOYMENT, "demo"),
        {},
        ownership_tags(DEPLOYMENT, "demo"),
        "arn:aws:iam::123456789012:policy/boundary",
    )
    add_subnet(world, MORE, "10.1.0.0/24")
    return world


def subnet_id(world: World, key: str) -> str:
    return world.network.find_subnets(TAG)[key].subnet_id


def test_add_sends_the_planned_group_with_its_own_subnet(world):
    result = world.group_steps().add_instance_group(ctx(OperationKind.ADD_INSTANCE_GROUP, hyperpod=PLAN))
    assert result == {"instanceGroup": "more", "action": "added"}
    [(_, cluster, spec, security_groups)] = world.hyperpod.calls
    assert (cluster, spec.subnet_ids, security_groups) == (HP, (subnet_id(world, MORE),), ("sg-1",))
    assert (spec.capacity_type, spec.ebs_volume_gb, spec.taints) == ("spot", 200, (Taint("gpu", None, "NoSchedule"),))
    assert spec.lifecycle_uri == f"s3://sagemaker-is-demo-{ACCOUNT}-{REGION}/lifecycle/"


def test_add_in_the_clusters_own_subnet_sends_no_override(world):
    own = add_subnet(world, compute_subnet_key("us-west-2b"), "10.1.1.0/24")
    world.hyperpod.clusters[HP] = replace(world.hyperpod.clusters[HP], subnet_ids=(own,))
    shared = PLAN.model_copy(update={"dedicatedSubnet": False})
    world.group_steps().add_instance_group(ctx(OperationKind.ADD_INSTANCE_GROUP, hyperpod=shared))
    assert world.hyperpod.calls[0][2].subnet_ids == ()


def test_add_finds_a_group_that_exists_and_sends_nothing(world):
    world.group_steps().add_instance_group(ctx(OperationKind.ADD_INSTANCE_GROUP, hyperpod=PLAN))
    again = world.group_steps().add_instance_group(ctx(OperationKind.ADD_INSTANCE_GROUP, hyperpod=PLAN))
    assert again == {"instanceGroup": "more", "action": "found"}
    assert len(world.hyperpod.calls) == 1


def test_add_waits_for_the_execution_role_and_subnet(world):
    world.network.subnets.clear()
    with pytest.raises(ResourceNotReadyError, match="compute subnet is missing"):
        world.group_steps().add_instance_group(ctx(OperationKind.ADD_INSTANCE_GROUP, hyperpod=PLAN))
    assert world.hyperpod.calls == []


def test_steps_refuse_a_cluster_that_is_not_ours(world):
    world.hyperpod.clusters[HP] = replace(world.hyperpod.clusters[HP], tags={})
    with pytest.raises(ResourceNotReadyError, match=f"HyperPod cluster {HP} is missing"):
        world.group_steps().delete_instance_group(deletion())
    assert world.hyperpod.calls == []


def test_update_sends_only_the_change(world):
    result = world.group_steps().update_instance_group(change(instanceCount=4, taints=[]))
    assert result["action"] == "updated"
    assert world.hyperpod.calls == [("update_group", HP, "gpu", GroupChange(count=4, taints=()))]


def test_update_already_applied_sends_nothing(world):
    result = world.group_steps().update_instance_group(change(instanceCount=2, labels={"team": "a"}))
    assert result == {"instanceGroup": "gpu", "action": "already applied"}
    assert world.hyperpod.calls == []


def test_update_of_a_group_that_is_gone_fails(world):
    world.hyperpod.clusters[HP] = replace(world.hyperpod.clusters[HP], groups=())
    with pytest.raises(InvalidRequestError, match="no longer exists"):
        world.group_steps().update_instance_group(change(instanceCount=4))


def test_check_is_done_once_the_group_reaches_its_target_without_scaling(world):
    steps = world.group_steps()
    steps.update_instance_group(change(instanceCount=3))
    assert steps.check_instance_group(change()).done is False
    world.hyperpod.settle()
    state = steps.check_instance_group(change())
    assert (state.done, state.attempts, state.status) == (True, 1, "InService")


def test_check_of_a_failed_group_fails_the_workflow(world):
    cluster = world.hyperpod.clusters[HP]
    world.hyperpod.clusters[HP] = replace(cluster, groups=(replace(GPU, status="Failed"),))
    with pytest.raises(DependencyFailedError, match="gpu is Failed"):
        world.group_steps().check_instance_group(change())


def test_check_waits_up_to_a_deadline_sized_to_the_group(world):
    world.group_steps().update_instance_group(change(instanceCount=3))
    started = world.clock.now()
    group_change = InstanceGroupChange(instanceGroupName="gpu")
    world.clock.sleep(timedelta(minutes=60).total_seconds())
    state = world.group_steps().check_instance_group(
        ctx(OperationKind.UPDATE_INSTANCE_GROUP, started, instanceGroup=group_change)
    )
    assert (state.done, state.startedAt) == (False, started)
    world.clock.sleep(timedelta(seconds=18).total_seconds())  # 1 h + 6 s per instance of the group's 3
    with pytest.raises(
        WaitTimeoutError, match=r"waiting 1 h 00 min .* gpu to have 3 instances in service \(2 so far\)"
    ):
        world.group_steps().check_instance_group(
            ctx(OperationKind.UPDATE_INSTANCE_GROUP, started, instanceGroup=group_change)
        )


def test_check_of_an_added_group_that_is_not_there_yet_retries(world):
    with pytest.raises(ResourceNotReadyError, match="more is not in the cluster yet"):
        world.group_steps().check_instance_group(ctx(OperationKind.ADD_INSTANCE_GROUP, hyperpod=PLAN))


def test_delete_asks_once_and_then_waits(world):
    steps = world.group_steps()
    assert steps.delete_instance_group(deletion())["action"] == "deleting"
    assert steps.delete_instance_group(deletion())["action"] == "deleting"
    assert world.hyperpod.calls == [("delete_group", HP, "gpu")]
    assert steps.check_instance_group_deleted(deletion()).status == "Deleting"
    world.hyperpod.settle()
    assert steps.delete_instance_group(deletion())["action"] == "absent"
    state = steps.check_instance_group_deleted(deletion())
    assert (state.done, state.status) == (True, "DELETED")


def test_check_deleted_gives_up_once_the_deadline_has_passed(world):
    started = world.clock.now()
    world.clock.sleep(timedelta(hours=2).total_seconds())
    with pytest.raises(WaitTimeoutError, match="group gpu to be deleted; its status is InService"):
        world.group_steps().check_instance_group_deleted(deletion(started=started))


def test_release_deletes_only_the_groups_dedicated_subnet(world):
    shared = compute_subnet_key("us-west-2b")
    add_subnet(world, shared, "10.1.1.0/24")
    more = subnet_id(world, MORE)
    assert world.group_steps().release_compute_subnet(deletion("more")) == {"released": more}
    assert set(world.network.find_subnets(TAG)) == {shared}, "only the dedicated subnet is deleted"
    assert world.group_steps().release_compute_subnet(deletion("more")) == {"released": "no dedicated subnet"}


def test_software_update_of_up_to_date_groups_starts_nothing(world):
    assert world.group_steps().start_software_update(software()) == {"action": "up to date"}
    assert world.hyperpod.calls == []


def test_software_update_to_another_image_starts_with_the_rolling_policy(world):
    assert world.group_steps().start_software_update(software("ami-0123456789abcdef0")) == {"action": "started"}
    assert world.hyperpod.calls == [
        ("update_software", HP, ("gpu",), "ami-0123456789abcdef0", RollingUpdate("percentage", 20, 0))
    ]
    assert world.group_steps().start_software_update(software("ami-0123456789abcdef0")) == {"action": "in progress"}
    assert len(world.hyperpod.calls) == 1


def test_software_check_waits_for_the_update_then_is_done(world):
    steps = world.group_steps()
    steps.start_software_update(software("ami-0123456789abcdef0"))
    assert steps.check_software_update(software()).done is False
    world.hyperpod.settle()
    assert steps.check_software_update(software()).done is True


def test_software_check_fails_on_a_rolled_back_group(world):
    cluster = world.hyperpod.clusters[HP]
    world.hyperpod.clusters[HP] = replace(cluster, groups=(replace(GPU, software_update_status="RollbackComplete"),))
    with pytest.raises(DependencyFailedError, match=r"failed on gpu \(RollbackComplete\)"):
        world.group_steps().check_software_update(software())


def test_software_check_gives_up_once_the_deadline_has_passed(world):
    world.group_steps().start_software_update(software("ami-0123456789abcdef0"))
    started = world.clock.now()
    world.clock.sleep(timedelta(hours=24).total_seconds())
    with pytest.raises(WaitTimeoutError, match="software update of gpu to finish"):
        world.group_steps().check_software_update(software(started=started))
