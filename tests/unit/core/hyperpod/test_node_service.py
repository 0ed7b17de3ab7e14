"""NodeService against in-memory fakes: the node list joined with Kubernetes, and node actions that validate every
id first, ask for confirmation before any of them (a reboot interrupts the node's pods too), and start an operation
(its workflow acts)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from controlplane.core.auth import Actor, Role
from controlplane.core.hyperpod.nodes import NodeNotFoundError
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.models.errors import ClusterNotReadyError, ConfirmationRequiredError, ForeignResourceError
from controlplane.models.nodes import MAX_NODES_PER_REQUEST, NodeBatchRequest
from controlplane.models.operations import OperationKind
from controlplane.models.status import HEALTH_LABEL, ZONE_LABEL
from tests.unit.core.hyperpod.world import World

ADMIN = Actor("alice", Role.ADMIN)
OTHER_ADMIN = Actor("bob", Role.ADMIN)
OPERATOR = Actor("olga", Role.OPERATOR)
HP = "hp-cluster-demo"
SPOT = InstanceGroup(
    name="spot",
    instance_type="ml.g6.4xlarge",
    status="InService",
    current_count=2,
    target_count=2,
    capacity_type="spot",
)


@pytest.fixture
def world() -> World:
    world = World()
    world.register()
    world.hyperpod.put_cluster(HP, (SPOT,))
    world.eks.add_cluster("eks-cluster-demo")
    return world


def node_ids(world: World) -> list[str]:
    return [node.node_id for node in world.hyperpod.nodes(HP)]


def test_list_joins_hyperpod_nodes_with_their_kubernetes_health_and_zone(world):
    first, second = node_ids(world)
    world.kubernetes_api().nodes = [
        KubernetesNode(
            f"hyperpod-{first}", True, False, {HEALTH_LABEL: "Schedulable", ZONE_LABEL: "us-west-2a"}, {}, {}
        )
    ]
    listed = {node.nodeId: node for node in world.nodes().list_nodes("demo").nodes}
    assert (listed[first].health, listed[first].ready, listed[first].schedulable) == ("Schedulable", True, False)
    assert (listed[first].availabilityZone, listed[first].capacityType) == ("us-west-2a", "spot")
    assert (listed[second].health, listed[second].ready) == (None, None)


def test_list_skips_kubernetes_while_eks_is_not_active(world):
    world.eks.add_cluster("eks-cluster-demo", status="UPDATING")
    world.kubernetes_api().nodes = [KubernetesNode(f"hyperpod-{node_ids(world)[0]}", True, True, {}, {}, {})]
    assert all(node.ready is None for node in world.nodes().list_nodes("demo").nodes)


def test_a_cluster_before_stage_4_has_no_nodes():
    world = World()
    world.register(stages=("eks",))
    with pytest.raises(ClusterNotReadyError, match="finish stage 4"):
        world.nodes().list_nodes("demo")


def started(world: World) -> list[tuple[OperationKind, dict]]:
    return [(kind, dict(payload)) for kind, _, payload in world.launcher.started]


def test_an_unknown_id_refuses_the_whole_batch(world):
    known = node_ids(world)[0]
    with pytest.raises(NodeNotFoundError) as error:
        world.nodes().act("demo", "reboot", [known, "i-0123456789abcdef0"], None, OPERATOR)
    assert error.value.details == {"unknownNodeIds": ["i-0123456789abcdef0"]}
    assert world.hyperpod.calls == [] and world.launcher.started == []


def confirmed(world: World, action: str, ids: list[str], actor: Actor):
    """The action as a caller whose person agreed to its plan."""
    token = world.nodes().plan("demo", action, ids, actor).confirmationToken
    return world.nodes().act("demo", action, ids, token, actor)


def test_a_reboot_starts_an_operation_for_each_node_once(world):
    ids = node_ids(world)
    operation = confirmed(world, "reboot", [ids[1], ids[0], ids[1]], OPERATOR)
    [(kind, payload)] = started(world)
    assert (operation.kind, kind) == (OperationKind.REBOOT_NODES, OperationKind.REBOOT_NODES)
    assert payload["nodes"] == [{"nodeId": node_id, "instanceGroup": "spot"} for node_id in sorted(ids)]
    assert payload["requestedAt"] and payload["hyperPodClusterName"] == HP
    assert world.hyperpod.calls == [], "the workflow makes the batch call"


@pytest.mark.parametrize(
    ("action", "planned", "actor"),
    [("reboot", "update", OPERATOR), ("replace", "update", ADMIN), ("delete", "delete", ADMIN)],
)
def test_every_node_action_plan_carries_a_token_and_says_what_the_nodes_lose(world, action, planned, actor):
    plan = world.nodes().plan("demo", action, node_ids(world)[:1], actor)
    assert plan.confirmationToken and plan.expiresAt
    assert [item.action for item in plan.actions] == [planned]
    assert "Ask the person to confirm" in str(plan.message)
    assert world.launcher.started == []


def test_a_reboot_plan_says_the_pods_on_the_node_are_interrupted(world):
    plan = world.nodes().plan("demo", "reboot", node_ids(world)[:1], OPERATOR)
    assert "pods" in str(plan.actions[0].detail) and "volumes are kept" in str(plan.actions[0].detail)


@pytest.mark.parametrize(
    ("action", "kind", "actor"),
    [
        ("reboot", OperationKind.REBOOT_NODES, OPERATOR),
        ("replace", OperationKind.REPLACE_NODES, ADMIN),
        ("delete", OperationKind.DELETE_NODES, ADMIN),
    ],
)
def test_every_node_action_starts_only_with_the_token_of_its_plan(world, action, kind, actor):
    target = node_ids(world)[:1]
    with pytest.raises(ConfirmationRequiredError):
        world.nodes().act("demo", action, target, None, actor)
    assert world.launcher.started == []
    assert confirmed(world, action, target, actor).kind == kind
    assert [started_kind for started_kind, _ in started(world)] == [kind]


def test_a_reboot_token_does_not_confirm_a_replace(world):
    target = node_ids(world)[:1]
    token = world.nodes().plan("demo", "reboot", target, ADMIN).confirmationToken
    with pytest.raises(ConfirmationRequiredError):
        world.nodes().act("demo", "replace", target, token, ADMIN)
    assert world.launcher.started == []


def test_a_token_is_used_once(world):
    target = node_ids(world)[:1]
    token = world.nodes().plan("demo", "replace", target, ADMIN).confirmationToken
    world.nodes().act("demo", "replace", target, token, ADMIN)
    with pytest.raises(ConfirmationRequiredError):
        world.nodes().act("demo", "replace", target, token, ADMIN)
    assert len(world.launcher.started) == 1


def test_a_token_is_bound_to_its_nodes_and_caller(world):
    first, second = node_ids(world)
    token = world.nodes().plan("demo", "replace", [first], ADMIN).confirmationToken
    with pytest.raises(ConfirmationRequiredError):
        world.nodes().act("demo", "replace", [second], token, ADMIN)
    token = world.nodes().plan("demo", "replace", [first], ADMIN).confirmationToken
    with pytest.raises(ConfirmationRequiredError):
        world.nodes().act("demo", "replace", [first], token, OTHER_ADMIN)
    assert world.launcher.started == []


def test_nodes_of_an_adopted_cluster_are_not_acted_on():
    world = World()
    world.register(imported=True, adopted=["eks", "hyperpod"], hyperPodClusterName="theirs")
    world.hyperpod.put_cluster("theirs", (SPOT,))
    with pytest.raises(ForeignResourceError):
        world.nodes().act("demo", "reboot", node_ids_of(world, "theirs"), None, ADMIN)
    assert world.launcher.started == []


def node_ids_of(world: World, cluster: str) -> list[str]:
    return [node.node_id for node in world.hyperpod.nodes(cluster)]


def test_a_batch_request_takes_at_most_the_apis_limit_of_well_formed_ids():
    ids = [f"i-{n:017x}" for n in range(MAX_NODES_PER_REQUEST + 1)]
    assert len(NodeBatchRequest(action="reboot", nodeIds=ids[:-1]).nodeIds) == MAX_NODES_PER_REQUEST
    with pytest.raises(ValidationError):
        NodeBatchRequest(action="reboot", nodeIds=ids)
    with pytest.raises(ValidationError):
        NodeBatchRequest(action="reboot", nodeIds=["node-1"])
    with pytest.raises(ValidationError):
        NodeBatchRequest(action="reboot", nodeIds=[])


def test_nodes_page_with_an_honest_continue_token(world):
    world.hyperpod.put_cluster(HP, (SPOT, InstanceGroup("big", "ml.c5.xlarge", "InService", 5, 5)))
    service = world.nodes()

    first = service.list_nodes("demo", limit=4)
    last = service.list_nodes("demo", limit=4, token=first.continue_)

    listed = [node.nodeId for node in first.nodes + last.nodes]
    assert (len(first.nodes), len(last.nodes), last.continue_) == (4, 3, None)
    assert listed == node_ids(world)
    assert service.list_nodes("demo", limit=7).continue_ is None


def test_a_page_reads_the_kubernetes_nodes_of_its_own_nodes_only(world, monkeypatch):
    world.hyperpod.put_cluster(HP, (SPOT, InstanceGroup("big", "ml.c5.xlarge", "InService", 5, 5)))
    world.kubernetes_api().nodes = [
        KubernetesNode(f"hyperpod-{node_id}", True, True, {}, {}, {}) for node_id in node_ids(world)
    ]
    asked: list[list[str]] = []
    named = world.kubernetes.nodes_named
    monkeypatch.setattr(world.kubernetes, "nodes_named", lambda *args: asked.append(list(args[2])) or named(*args))

    def no_listing(*args, **kwargs):
        raise AssertionError("a page of nodes must not list every Kubernetes node")

    monkeypatch.setattr(world.kubernetes, "nodes", no_listing)

    page = world.nodes().list_nodes("demo", limit=3)

    assert asked == [[f"hyperpod-{node.nodeId}" for node in page.nodes]]
    assert all(node.ready for node in page.nodes)


def test_node_ids_are_checked_one_by_one_not_by_listing_the_cluster(world, monkeypatch):
    def no_listing(*args, **kwargs):
        raise AssertionError("a node action must not list the cluster's nodes")

    monkeypatch.setattr(world.hyperpod, "node_page", no_listing)
    first, second = node_ids(world)
    confirmed(world, "reboot", [second, first], OPERATOR)
    [(_, payload)] = started(world)
    assert [node["nodeId"] for node in payload["nodes"]] == sorted([first, second])
