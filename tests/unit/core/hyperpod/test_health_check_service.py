"""HealthCheckService against in-memory fakes: the nodes named one by one or by group, each checked before anything
starts (unknown node or group, a node not Running, a group without deep health checks: a 4xx that says what to
change), and an operation started only with the plan's token."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from controlplane.core.auth import Actor, Role
from controlplane.core.hyperpod.group_rules import InstanceGroupNotFoundError
from controlplane.core.hyperpod.health_checks import NodeNotInServiceError
from controlplane.core.hyperpod.nodes import NodeNotFoundError
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.models.errors import ConfirmationRequiredError
from controlplane.models.health_checks import StartHealthCheckRequest
from controlplane.models.operations import OperationKind
from tests.unit.core.hyperpod.world import World

ADMIN = Actor("alice", Role.ADMIN)
HP = "hp-cluster-demo"
GPU = InstanceGroup("gpu", "ml.g5.8xlarge", "InService", 2, 2)
CPU = InstanceGroup("cpu", "ml.m5.xlarge", "InService", 1, 1)
LAUNCHED = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def world() -> World:
    world = World()
    world.register()
    world.hyperpod.put_cluster(HP, (GPU, CPU))
    for node in world.hyperpod.nodes(HP):
        world.hyperpod.set_node(HP, node.node_id, launch_time=LAUNCHED)
    return world


def ids(world: World, group: str) -> list[str]:
    return [node.node_id for node in world.hyperpod.nodes(HP) if node.group == group]


def request(**fields: object) -> StartHealthCheckRequest:
    return StartHealthCheckRequest.model_validate(fields)


def test_a_request_must_name_nodes_or_groups():
    with pytest.raises(ValidationError, match="nodeIds, instanceGroups, or both"):
        request()


def test_a_group_names_its_every_node_and_the_plan_says_they_leave_scheduling(world):
    plan = world.health_checks().plan("demo", request(instanceGroups=["gpu"]), ADMIN)
    assert [action.name for action in plan.actions] == sorted(ids(world, "gpu"))
    assert "out of scheduling" in plan.message and "replaces it" in plan.message
    assert plan.confirmationToken and world.hyperpod.calls == []


def test_the_check_starts_only_with_the_plans_token(world):
    body = request(nodeIds=ids(world, "gpu")[:1], checks=["InstanceStress"])
    with pytest.raises(ConfirmationRequiredError):
        world.health_checks().start("demo", body, ADMIN)
    token = world.health_checks().plan("demo", body, ADMIN).confirmationToken
    operation = world.health_checks().start("demo", body.model_copy(update={"confirmationToken": token}), ADMIN)
    assert operation.kind == OperationKind.CHECK_NODE_HEALTH and operation.destructive
    assert operation.input["nodes"] == [{"nodeId": ids(world, "gpu")[0], "instanceGroup": "gpu"}]
    assert operation.input["checks"] == ["InstanceStress"]


def test_an_unknown_node_is_a_404_naming_it(world):
    with pytest.raises(NodeNotFoundError) as raised:
        world.health_checks().plan("demo", request(nodeIds=["i-0123456789abcdef0"]), ADMIN)
    assert raised.value.details == {"unknownNodeIds": ["i-0123456789abcdef0"]}


def test_an_unknown_group_is_a_404_listing_the_groups(world):
    with pytest.raises(InstanceGroupNotFoundError, match="its groups are: gpu, cpu"):
        world.health_checks().plan("demo", request(instanceGroups=["nope"]), ADMIN)


def test_a_node_not_running_is_refused_saying_to_wait_or_leave_it_out(world):
    busy = ids(world, "gpu")[0]
    world.hyperpod.set_node(HP, busy, status="DeepHealthCheckInProgress")
    with pytest.raises(NodeNotInServiceError, match=f"{busy} is DeepHealthCheckInProgress. Wait") as raised:
        world.health_checks().plan("demo", request(instanceGroups=["gpu"]), ADMIN)
    assert raised.value.status == 409


def test_a_group_without_deep_health_checks_is_refused(world):
    with pytest.raises(NodeNotInServiceError, match="cpu of 'demo' run an instance type without deep health checks"):
        world.health_checks().plan("demo", request(nodeIds=ids(world, "cpu")), ADMIN)


def test_a_resume_rechecks_and_lists_the_nodes(world):
    body = request(nodeIds=ids(world, "gpu"))
    token = world.health_checks().plan("demo", body, ADMIN).confirmationToken
    operation = world.health_checks().start("demo", body.model_copy(update={"confirmationToken": token}), ADMIN)
    record = world.clusters.get("demo")
    plan = world.health_checks().recheck(record, operation)
    assert [action.name for action in plan.actions] == sorted(ids(world, "gpu"))
