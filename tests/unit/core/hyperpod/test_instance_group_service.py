"""InstanceGroupService against in-memory fakes: the live view, plans, explicit-diff updates, confirmed deletes and
software updates, each checked before any workflow starts."""

from __future__ import annotations

from dataclasses import replace

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.hyperpod.group_rules import InstanceGroupNotFoundError
from controlplane.core.hyperpod_planning import HyperPodPlanner
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.core.ports.kubernetes import KubernetesNode, WorkloadPods
from controlplane.models.errors import (
    ClusterExistsError,
    ClusterNotReadyError,
    ConfirmationRequiredError,
    ForeignResourceError,
    InvalidRequestError,
)
from controlplane.models.instance_groups import (
    AddInstanceGroupRequest,
    SoftwareUpdateRequest,
    UpdateInstanceGroupRequest,
)
from controlplane.models.operations import OperationKind
from controlplane.models.status import GROUP_LABEL
from tests.fakes.kubernetes import Pod
from tests.unit.core.hyperpod.world import REGION, World

ADMIN = Actor("alice", Role.ADMIN)
HP = "hp-cluster-demo"
GPU = InstanceGroup(
    name="gpu",
    instance_type="ml.g6.4xlarge",
    status="InService",
    current_count=2,
    target_count=2,
    min_count=1,
    capacity_type="spot",
    deep_health_checks=True,
    ebs_volume_gb=500,
    threads_per_core=1,
    labels={"team": "a"},
    image_release_version="1.0.0",
)
CPU = InstanceGroup(
    name="cpu",
    instance_type="ml.m5.xlarge",
    status="InService",
    current_count=1,
    target_count=1,
    subnet_ids=("subnet-b",),
    image_release_version="1.0.0",
)


@pytest.fixture
def world() -> World:
    world = World()
    world.register()
    world.hyperpod.put_cluster(HP, (GPU, CPU), subnet_ids=("subnet-a",), tags={"instantstart:cluster": "demo"})
    world.eks.add_cluster("eks-cluster-demo")
    return world


def started(world: World) -> list[tuple[OperationKind, dict]]:
    return [(kind, dict(payload)) for kind, _, payload in world.launcher.started]


def test_list_shows_each_group_with_its_capacity_and_subnets(world):
    listing = world.instance_groups().list("demo")
    assert (listing.hyperPodClusterName, listing.hyperPodStatus) == (HP, "InService")
    gpu, cpu = listing.instanceGroups
    assert (gpu.instanceGroupName, gpu.capacityType, gpu.subnetIds, gpu.labels) == (
        "gpu",
        "spot",
        ["subnet-a"],
        {"team": "a"},
    )
    assert (cpu.capacityType, cpu.subnetIds, cpu.deepHealthChecks) == ("on-demand", ["subnet-b"], False)


def test_list_works_on_an_adopted_cluster_but_changes_are_refused():
    world = World()
    world.register(imported=True, adopted=["eks", "hyperpod"], hyperPodClusterName="theirs")
    world.hyperpod.put_cluster("theirs", (GPU,))
    assert [group.instanceGroupName for group in world.instance_groups().list("demo").instanceGroups] == ["gpu"]
    with pytest.raises(ForeignResourceError):
        world.instance_groups().update("demo", "gpu", UpdateInstanceGroupRequest(instanceCount=3), None, ADMIN)
    assert world.launcher.started == []


def test_a_cluster_before_stage_4_has_no_groups_to_list():
    world = World()
    world.register(stages=("eks", "dependencies"))
    with pytest.raises(ClusterNotReadyError, match="finish stage 4"):
        world.instance_groups().list("demo")


def test_plan_add_resolves_the_group_and_lists_subnet_and_group(world):
    request = AddInstanceGroupRequest(
        instanceGroupName="more", instanceType="ml.g6.4xlarge", instanceCount=2, availabilityZone="us-west-2b"
    )
    plan = world.instance_groups().plan_add("demo", request)
    resolved = HyperPodPlanner(world.account).resolve_group(REGION, request)
    assert (resolved.availabilityZone, resolved.deepHealthChecks, resolved.threadsPerCore) == ("us-west-2b", True, 1)
    assert [action.resource for action in plan.actions] == ["AWS::EC2::Subnet", "HyperPod instance group"]
    assert plan.actions[1].detail.startswith("2 x ml.g6.4xlarge in us-west-2b, on-demand capacity")
    assert world.launcher.started == []


def test_add_refuses_an_existing_group_name_before_starting(world):
    request = AddInstanceGroupRequest(
        instanceGroupName="gpu", instanceType="ml.g6.4xlarge", instanceCount=1, availabilityZone="us-west-2b"
    )
    with pytest.raises(ClusterExistsError):
        world.instance_groups().add("demo", request, ADMIN)
    assert world.launcher.started == []


def test_add_starts_the_workflow_with_the_resolved_group(world):
    request = AddInstanceGroupRequest(
        instanceGroupName="more", instanceType="ml.m5.xlarge", instanceCount=1, availabilityZone="us-west-2a"
    )
    operation = world.instance_groups().add("demo", request, ADMIN)
    [(kind, payload)] = started(world)
    assert kind == operation.kind == OperationKind.ADD_INSTANCE_GROUP
    assert payload["hyperpod"]["instanceGroupName"] == "more"
    assert payload["hyperpod"]["deepHealthChecks"] is False
    assert payload["hyperPodClusterName"] == HP


def test_an_update_whose_fields_already_have_their_values_starts_nothing(world):
    result = world.instance_groups().update(
        "demo", "gpu", UpdateInstanceGroupRequest(instanceCount=2, labels={"team": "a"}), None, ADMIN
    )
    assert result.changes == {"instanceCount": "unchanged", "labels": "unchanged"}
    assert result.operation is None
    assert world.launcher.started == []


def test_an_update_carries_only_the_changed_fields(world):
    result = world.instance_groups().update(
        "demo", "gpu", UpdateInstanceGroupRequest(instanceCount=4, labels={"team": "a"}), None, ADMIN
    )
    assert result.changes == {"instanceCount": "updated", "labels": "unchanged"}
    assert result.operation is not None and result.confirmationToken is None
    [(kind, payload)] = started(world)
    assert kind == OperationKind.UPDATE_INSTANCE_GROUP
    assert payload["instanceGroup"] == {"instanceGroupName": "gpu", "instanceCount": 4}


def test_a_scale_down_answers_with_its_plan_and_a_token_and_starts_only_with_that_token(world):
    service = world.instance_groups()
    request = UpdateInstanceGroupRequest(instanceCount=1)
    planned = service.update("demo", "gpu", request, None, ADMIN)
    assert (planned.dryRun, planned.operation, planned.changes) == (True, None, {"instanceCount": "updated"})
    assert planned.confirmationToken and "terminates nodes" in planned.message
    assert [(a.action, a.name) for a in planned.actions] == [("delete", "1 of 2 x ml.g6.4xlarge in gpu")]
    assert world.launcher.started == []
    other = UpdateInstanceGroupRequest(instanceCount=1, labels={"team": "b"})
    with pytest.raises(ConfirmationRequiredError):
        service.update("demo", "gpu", other, planned.confirmationToken, ADMIN)
    with pytest.raises(ConfirmationRequiredError):
        service.update("demo", "gpu", request, planned.confirmationToken, Actor("mallory", Role.ADMIN))
    assert service.update("demo", "gpu", request, planned.confirmationToken, ADMIN).operation is not None
    [(_, payload)] = started(world)
    assert payload["instanceGroup"] == {"instanceGroupName": "gpu", "instanceCount": 1}


def test_a_scale_down_token_is_bound_to_the_count_it_was_planned_against(world):
    service = world.instance_groups()
    request = UpdateInstanceGroupRequest(instanceCount=1)
    token = service.plan_update("demo", "gpu", request, ADMIN).confirmationToken
    world.hyperpod.put_cluster(
        HP,
        (replace(GPU, current_count=3, target_count=3), CPU),
        subnet_ids=("subnet-a",),
        tags={"instantstart:cluster": "demo"},
    )
    with pytest.raises(ConfirmationRequiredError, match="planned against a state that has changed"):
        service.update("demo", "gpu", request, token, ADMIN)
    assert world.launcher.started == []


def test_a_dry_run_shows_the_diff_and_a_scale_up_needs_no_token(world):
    result = world.instance_groups().plan_update("demo", "gpu", UpdateInstanceGroupRequest(instanceCount=4), ADMIN)
    assert (result.dryRun, result.changes, result.confirmationToken) == (True, {"instanceCount": "updated"}, None)


def test_diff_refuses_an_unknown_group(world):
    with pytest.raises(InstanceGroupNotFoundError):
        world.instance_groups().plan_update("demo", "tpu", UpdateInstanceGroupRequest(instanceCount=1), ADMIN)


def test_diff_refuses_an_invalid_change_before_anything_starts(world):
    with pytest.raises(InvalidRequestError, match="immutable"):
        world.instance_groups().update(
            "demo", "cpu", UpdateInstanceGroupRequest(instanceType="ml.m5.2xlarge"), None, ADMIN
        )
    assert world.launcher.started == []


def test_delete_needs_the_token_of_a_prior_plan(world):
    service = world.instance_groups()
    plan = service.plan_delete("demo", "cpu", ADMIN)
    assert plan.confirmationToken
    assert plan.actions[0].detail == "1 x ml.m5.xlarge: its nodes and their volumes are terminated"
    with pytest.raises(ConfirmationRequiredError):
        service.delete("demo", "gpu", plan.confirmationToken, ADMIN)
    assert world.launcher.started == []


def test_delete_with_the_token_starts_the_workflow_once(world):
    service = world.instance_groups()
    token = service.plan_delete("demo", "cpu", ADMIN).confirmationToken or ""
    service.delete("demo", "cpu", token, ADMIN)
    [(kind, payload)] = started(world)
    assert (kind, payload["instanceGroup"]) == (OperationKind.DELETE_INSTANCE_GROUP, {"instanceGroupName": "cpu"})
    with pytest.raises(ConfirmationRequiredError):
        service.delete("demo", "cpu", token, ADMIN)


def test_a_delete_token_confirms_the_group_its_plan_listed_only(world):
    """Issue 29, finding 3: the group grew after its plan, so the plan no longer says what the delete terminates."""
    service = world.instance_groups()
    token = service.plan_delete("demo", "cpu", ADMIN).confirmationToken or ""
    world.hyperpod.put_cluster(
        HP,
        (GPU, replace(CPU, current_count=8, target_count=8)),
        subnet_ids=("subnet-a",),
        tags={"instantstart:cluster": "demo"},
    )
    with pytest.raises(ConfirmationRequiredError):
        service.delete("demo", "cpu", token, ADMIN)
    assert world.launcher.started == []
    assert "8 x ml.m5.xlarge" in service.plan_delete("demo", "cpu", ADMIN).actions[0].detail


def test_a_resumed_group_delete_is_rechecked_against_the_live_group(world):
    service = world.instance_groups()
    token = service.plan_delete("demo", "cpu", ADMIN).confirmationToken or ""
    operation = service.delete("demo", "cpu", token, ADMIN)
    assert operation.destructive
    record = world.registry.find("demo")
    assert service.recheck(record, operation).actions[0].detail.startswith("1 x ml.m5.xlarge")
    world.kubernetes_api().nodes = [KubernetesNode("hyperpod-i-1", True, True, {GROUP_LABEL: "cpu"}, {}, {})]
    world.kubernetes_api().pods = [Pod("team", "job-0", "hyperpod-i-1")]
    with pytest.raises(ClusterNotReadyError, match="runs workload pods"):
        service.recheck(record, operation)


def test_a_group_running_workload_pods_is_not_deleted(world):
    world.kubernetes_api().nodes = [
        KubernetesNode("hyperpod-i-1", True, True, {GROUP_LABEL: "cpu"}, {}, {}),
        KubernetesNode("hyperpod-i-2", True, True, {GROUP_LABEL: "gpu"}, {}, {}),
    ]
    world.kubernetes_api().pods = [
        *(Pod("team", f"job-{i}", "hyperpod-i-1") for i in range(7)),
        Pod("team", "other", "hyperpod-i-2"),
    ]
    with pytest.raises(ClusterNotReadyError, match=r"runs workload pods \(team/job-0, .*team/job-4 and 2 more\)"):
        world.instance_groups().plan_delete("demo", "cpu", ADMIN)


def test_a_pod_read_that_stopped_early_says_there_may_be_more(world, monkeypatch):
    world.kubernetes_api().nodes = [KubernetesNode("hyperpod-i-1", True, True, {GROUP_LABEL: "cpu"}, {}, {})]
    monkeypatch.setattr(
        world.kubernetes, "workload_pods", lambda *args: WorkloadPods(("team/a", "team/b"), complete=False)
    )
    with pytest.raises(ClusterNotReadyError, match=r"\(team/a, team/b, maybe others\)") as error:
        world.instance_groups().plan_delete("demo", "cpu", ADMIN)
    assert error.value.details == {"pods": ["team/a", "team/b"], "podsFound": 2, "allPodsRead": False}


def test_software_update_plans_every_group_by_default_with_its_current_release(world):
    shown = world.instance_groups().plan_software_update("demo", SoftwareUpdateRequest(), ADMIN)
    assert [action.name for action in shown.actions] == ["gpu", "cpu"]
    assert [action.detail for action in shown.actions] == [
        "AMI latest HyperPod release (now 1.0.0), 20% at a time",
        "AMI latest HyperPod release (now 1.0.0), 20% at a time",
    ]
    assert shown.confirmationToken and "restarts the nodes of gpu, cpu" in (shown.message or "")


def test_software_update_refuses_an_unknown_group_and_starts_nothing(world):
    request = SoftwareUpdateRequest(instanceGroups=["gpu", "tpu"])
    with pytest.raises(InstanceGroupNotFoundError):
        world.instance_groups().plan_software_update("demo", request, ADMIN)
    with pytest.raises(InstanceGroupNotFoundError):
        world.instance_groups().update_software("demo", request, "token", ADMIN)
    assert world.launcher.started == []


def test_software_update_starts_only_with_the_token_of_its_plan(world):
    service = world.instance_groups()
    request = SoftwareUpdateRequest(instanceGroups=["cpu"], rollingPolicy={"batchType": "count", "batchSize": 1})
    with pytest.raises(ConfirmationRequiredError):
        service.update_software("demo", request, "", ADMIN)
    token = service.plan_software_update("demo", request, ADMIN).confirmationToken or ""
    with pytest.raises(ConfirmationRequiredError):
        service.update_software("demo", SoftwareUpdateRequest(instanceGroups=["gpu"]), token, ADMIN)
    service.update_software("demo", request, token, ADMIN)
    [(kind, payload)] = started(world)
    assert kind == OperationKind.UPDATE_CLUSTER_SOFTWARE
    assert payload["softwareUpdate"]["instanceGroups"] == ["cpu"]
