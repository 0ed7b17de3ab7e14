"""The deep-health-check workflow's steps against in-memory fakes: StartClusterHealthCheck for the nodes not already
in a check, grouped by instance group; then a check that waits for every node's check to end and names each node's
outcome (healthy, rebooted, replaced by a node it names), failing when a node Running is still held out of
scheduling."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from controlplane.core.ports.hyperpod import HyperPodNode, InstanceGroup
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.models.errors import NodeNotRecoveredError
from controlplane.models.status import HEALTH_LABEL
from controlplane.models.workflow import CheckNodeHealthInput, parse_input
from tests.unit.core.hyperpod.world import World

HP = "hp-cluster-demo"
REQUESTED = datetime(2026, 1, 1, tzinfo=UTC)
GPU = InstanceGroup("gpu", "ml.g5.8xlarge", "InService", 2, 2)
DEEP = "sagemaker.amazonaws.com/deep-health-check-status"


@pytest.fixture
def world() -> World:
    world = World()
    world.hyperpod.put_cluster(HP, (GPU,))
    return world


def ids(world: World) -> list[str]:
    return [node.node_id for node in world.hyperpod.nodes(HP)]


def ctx(node_ids: list[str], acted: list[str] | None = None) -> CheckNodeHealthInput:
    state = {
        "kind": "check_node_health",
        "operationId": "op-1",
        "clusterTag": "demo",
        "incarnation": "inc-demo",
        "region": "us-west-2",
        "accountId": "123456789012",
        "eksClusterName": "eks-cluster-demo",
        "hyperPodClusterName": HP,
        "imported": False,
        "nodes": [{"nodeId": node_id, "instanceGroup": "gpu"} for node_id in node_ids],
        "checks": ["InstanceStress", "InstanceConnectivity"],
        "requestedAt": REQUESTED.isoformat(),
    }
    if acted is not None:
        state["acted"] = {"nodeIds": acted}
    parsed = parse_input(state)
    assert isinstance(parsed, CheckNodeHealthInput)
    return parsed


def labelled(world: World, labels: dict[str, dict[str, str]]) -> None:
    world.eks.add_cluster("eks-cluster-demo")
    world.kubernetes_api().nodes = [
        KubernetesNode(f"hyperpod-{node_id}", True, True, node_labels, {}, {})
        for node_id, node_labels in labels.items()
    ]


def test_start_sends_the_running_nodes_by_group_and_keeps_those_already_in_a_check(world):
    first, second = ids(world)
    world.hyperpod.set_node(HP, first, status="DeepHealthCheckInProgress")
    acted = world.health_check_steps().start(ctx([first, second]))
    assert acted.nodeIds == sorted([first, second])
    assert world.hyperpod.calls == [
        ("start_health_check", HP, {"gpu": [second]}, ("InstanceStress", "InstanceConnectivity"))
    ]


def test_a_retry_after_every_node_started_calls_nothing(world):
    first, second = ids(world)
    world.health_check_steps().start(ctx([first, second]))
    world.hyperpod.calls.clear()
    assert world.health_check_steps().start(ctx([first, second])).nodeIds == sorted([first, second])
    assert world.hyperpod.calls == []


def test_the_check_waits_while_a_node_is_in_its_check(world):
    first, second = ids(world)
    world.hyperpod.set_node(HP, first, status="DeepHealthCheckInProgress", message="Deep health checks")
    check = world.health_check_steps().check(ctx([first, second], acted=[first, second]))
    assert (check.done, check.status) == (
        False,
        f"{first} DeepHealthCheckInProgress (Deep health checks); {second} Running",
    )


def test_the_check_names_each_nodes_outcome_healthy_rebooted_and_replaced(world):
    world.hyperpod.put_cluster(HP, (InstanceGroup("gpu", "ml.g5.8xlarge", "InService", 3, 3),))
    first, second, third_id = ids(world)
    new = HyperPodNode(
        "i-0000000000000beef", "gpu", "ml.g5.8xlarge", "Running", None, REQUESTED + timedelta(hours=1), None
    )
    world.hyperpod.cluster_nodes[HP] = [node for node in world.hyperpod.nodes(HP) if node.node_id != third_id] + [new]
    labelled(
        world,
        {first: {DEEP: "Passed", HEALTH_LABEL: "Schedulable"}, second: {DEEP: "Failed", HEALTH_LABEL: "Schedulable"}},
    )
    check = world.health_check_steps().check(ctx([first, second, third_id], acted=[first, second, third_id]))
    assert check.done
    assert check.status == f"{first} healthy; {second} rebooted; {third_id} replaced by {new.node_id} (Running)"


def test_a_node_running_but_held_out_of_scheduling_did_not_recover(world):
    first, _ = ids(world)
    labelled(world, {first: {DEEP: "Failed", HEALTH_LABEL: "UnschedulablePendingReplacement"}})
    with pytest.raises(NodeNotRecoveredError, match=f"{first} is Running but its health is UnschedulablePending"):
        world.health_check_steps().check(ctx([first], acted=[first]))
