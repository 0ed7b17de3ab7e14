"""The node-action workflows' steps against in-memory fakes: one batch call for the nodes not already taken, then a
check that each node has settled (rebooted Running, replaced by a Running node it names, deleted gone); a rebooted
node HyperPod still holds out of scheduling did not recover, and the check says what it is and to replace it."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from controlplane.core.ports.hyperpod import HyperPodNode, InstanceGroup
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.models.errors import DependencyFailedError, NodeNotRecoveredError
from controlplane.models.operations import OperationKind
from controlplane.models.status import HEALTH_LABEL
from controlplane.models.workflow import NodeActionInput, parse_input
from tests.unit.core.hyperpod.world import World

HP = "hp-cluster-demo"
REQUESTED = datetime(2026, 1, 1, tzinfo=UTC)
SPOT = InstanceGroup("spot", "ml.g6.4xlarge", "InService", 2, 2)


@pytest.fixture
def world() -> World:
    world = World()
    world.hyperpod.put_cluster(HP, (SPOT,))
    return world


def ids(world: World) -> list[str]:
    return [node.node_id for node in world.hyperpod.nodes(HP)]


def ctx(kind: OperationKind, node_ids: list[str], acted: list[str] | None = None) -> NodeActionInput:
    state = {
        "kind": kind,
        "operationId": "op-1",
        "clusterTag": "demo",
        "incarnation": "inc-demo",
        "region": "us-west-2",
        "accountId": "123456789012",
        "eksClusterName": "eks-cluster-demo",
        "hyperPodClusterName": HP,
        "imported": False,
        "nodes": [{"nodeId": node_id, "instanceGroup": "spot"} for node_id in node_ids],
        "requestedAt": REQUESTED.isoformat(),
    }
    if acted is not None:
        state["acted"] = {"nodeIds": acted}
    parsed = parse_input(state)
    assert isinstance(parsed, NodeActionInput)
    return parsed


def set_status(world: World, node_id: str, status: str) -> None:
    world.hyperpod.cluster_nodes[HP] = [
        replace(node, status=status) if node.node_id == node_id else node for node in world.hyperpod.nodes(HP)
    ]


def test_reboot_calls_the_batch_api_once_for_the_nodes_not_already_rebooting(world):
    first, second = ids(world)
    set_status(world, first, "Pending")
    acted = world.node_steps().act(ctx(OperationKind.REBOOT_NODES, [first, second]))
    assert acted.nodeIds == sorted([first, second])
    assert world.hyperpod.calls == [("node_action", HP, "reboot", (second,))]


def test_a_batch_call_every_node_refused_fails_the_step_naming_each_reason(world):
    with pytest.raises(
        DependencyFailedError, match=r"refused to reboot every node.*i-0000000000000dead: InstanceIdNotFound"
    ):
        world.node_steps().act(ctx(OperationKind.REBOOT_NODES, ["i-0000000000000dead"]))


def test_a_reboot_is_done_when_every_node_taken_is_running_again(world):
    first, second = ids(world)
    set_status(world, first, "Pending")
    check = world.node_steps().check(ctx(OperationKind.REBOOT_NODES, [first, second], acted=[first, second]))
    assert (check.done, check.status) == (False, f"{first} Pending; {second} Running")
    set_status(world, first, "Running")
    assert world.node_steps().check(ctx(OperationKind.REBOOT_NODES, [first, second], acted=[first, second])).done


def health(world: World, **labels: str) -> None:
    """The EKS cluster, and the Kubernetes node of each instance id with this health label."""
    world.eks.add_cluster("eks-cluster-demo")
    world.kubernetes_api().nodes = [
        KubernetesNode(f"hyperpod-{node_id}", True, value.startswith("Schedulable"), {HEALTH_LABEL: value}, {}, {})
        for node_id, value in labels.items()
    ]


def test_a_rebooted_node_still_pending_replacement_did_not_recover_and_the_check_says_to_replace_it(world):
    """Issue 30, finding 4: the reboot reported success while the node stayed UnschedulablePendingReplacement."""
    first, second = ids(world)
    health(world, **{first: "UnschedulablePendingReplacement", second: "Schedulable"})
    with pytest.raises(NodeNotRecoveredError) as raised:
        world.node_steps().check(ctx(OperationKind.REBOOT_NODES, [first, second], acted=[first, second]))
    message = raised.value.message
    assert f"{first} is Running but its health is UnschedulablePendingReplacement" in message
    assert "hyperpod_node_replace" in message and second not in message
    assert raised.value.details["nodes"] == [
        {"nodeId": first, "status": "Running", "health": "UnschedulablePendingReplacement"}
    ]


def test_a_rebooted_node_that_is_schedulable_again_ends_the_reboot(world):
    first, second = ids(world)
    health(world, **{first: "Schedulable", second: "Schedulable"})
    assert world.node_steps().check(ctx(OperationKind.REBOOT_NODES, [first, second], acted=[first, second])).done


def test_a_replace_is_done_when_the_replacement_runs_and_reports_its_id(world):
    old, _ = ids(world)
    step = world.node_steps()
    check = step.check(ctx(OperationKind.REPLACE_NODES, [old], acted=[old]))
    assert check.done is False and check.status.startswith(f"{old} Running")
    new = HyperPodNode(
        "i-0000000000000beef", "spot", "ml.g6.4xlarge", "Pending", None, REQUESTED + timedelta(minutes=1), None
    )
    before = HyperPodNode(
        "i-0000000000000aaaa", "spot", "ml.g6.4xlarge", "Running", None, REQUESTED - timedelta(days=1), None
    )
    world.hyperpod.cluster_nodes[HP] = [node for node in world.hyperpod.nodes(HP) if node.node_id != old] + [
        before,
        new,
    ]
    check = step.check(ctx(OperationKind.REPLACE_NODES, [old], acted=[old]))
    assert (check.done, check.status) == (False, f"{old} replaced by i-0000000000000beef (Pending)")
    set_status(world, new.node_id, "Running")
    check = step.check(ctx(OperationKind.REPLACE_NODES, [old], acted=[old]))
    assert (check.done, check.status) == (True, f"{old} replaced by i-0000000000000beef (Running)")


def test_a_delete_is_done_when_every_node_is_gone(world):
    first, _ = ids(world)
    step = world.node_steps()
    assert step.check(ctx(OperationKind.DELETE_NODES, [first], acted=[first])).done is False
    step.act(ctx(OperationKind.DELETE_NODES, [first]))
    check = step.check(ctx(OperationKind.DELETE_NODES, [first], acted=[first]))
    assert (check.done, check.status) == (True, f"{first} deleted")
