"""EventService and RemediationService against in-memory fakes: duplicates and out-of-order events are harmless,
waits are woken by their topics, and the policy acts only where HyperPod's own recovery did not."""

from __future__ import annotations

from datetime import timedelta

from controlplane.core.auth import Actor, Role
from controlplane.core.events.service import EventService
from controlplane.core.events.waits import wait_key
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.core.remediation.policy import RemediationPolicyService
from controlplane.core.remediation.service import RemediationService
from controlplane.models.errors import ConfirmationRequiredError
from controlplane.models.events import HyperPodEvent, RemediationPolicy
from controlplane.models.operations import OperationKind
from tests.fakes.events import InMemoryEventStore, InMemoryEventWaits, RecordingTaskSignal
from tests.fakes.persistence import InMemoryAuditLog
from tests.unit.core.hyperpod.world import World

HP = "hp-cluster-demo"
GPU = InstanceGroup(name="gpu", instance_type="ml.g6.4xlarge", status="InService", current_count=2, target_count=2)
ADMIN = Actor(principal="alice", role=Role.ADMIN)


class Setup:
    def __init__(self) -> None:
        self.world = World()
        self.world.register()
        self.world.hyperpod.put_cluster(HP, (GPU,))
        self.store = InMemoryEventStore()
        self.waits = InMemoryEventWaits()
        self.signal = RecordingTaskSignal()
        self.audit = InMemoryAuditLog()
        self.remediation = RemediationService(
            self.world.clusters,
            self.store,
            self.world.operations,
            lambda region: self.world.hyperpod,
            self.audit,
            self.world.clock,
        )
        self.policies = RemediationPolicyService(
            self.world.clusters, self.store, self.world.confirmations, self.world.clock
        )
        self.events = EventService(
            self.world.clusters,
            self.world.registry,
            self.store,
            self.waits,
            self.signal,
            self.remediation,
            self.world.clock,
        )

    def set_policy(self, policy: RemediationPolicy) -> None:
        """Store the policy as an admin whose person agreed to its plan (a replacing one has one)."""
        try:
            self.policies.set_policy("demo", policy, ADMIN, dry_run=False, token=None)
        except ConfirmationRequiredError as asked:
            token = (asked.details or {})["confirmationToken"]
            self.policies.set_policy("demo", policy, ADMIN, dry_run=False, token=token)

    def node(self, index: int = 0) -> str:
        return self.world.hyperpod.nodes(HP)[index].node_id

    def unhealthy(self, node_id: str, seconds: int = 0, repair: str = "None", event_id: str = "") -> HyperPodEvent:
        return HyperPodEvent(
            eventId=event_id or f"health-{node_id}-{seconds}",
            kind="NodeHealth",
            time=self.world.clock.now() + timedelta(seconds=seconds),
            region="us-west-2",
            clusterName=HP,
            instanceId=node_id,
            healthStatus="Unhealthy",
            repairAction=repair,
        )

    def healthy(self, node_id: str, seconds: int) -> HyperPodEvent:
        return self.unhealthy(node_id, seconds).model_copy(
            update={"healthStatus": "Healthy", "eventId": f"healthy-{seconds}"}
        )

    def replaces(self) -> int:
        return sum(1 for kind, _, _ in self.world.launcher.started if kind == OperationKind.REPLACE_NODES)


def test_a_duplicated_unhealthy_node_event_starts_exactly_one_replacement():
    setup = Setup()
    setup.set_policy(RemediationPolicy(action="replace"))
    event = setup.unhealthy(setup.node())
    first, second = setup.events.handle(event), setup.events.handle(event)
    assert (first.handled, second.handled) == ("recorded", "duplicate")
    assert first.remediation is not None and first.remediation.outcome == "started"
    assert setup.replaces() == 1
    (entry,) = setup.audit.entries
    assert (entry.actor, entry.onBehalfOf, entry.operationId) == (
        "remediation-policy",
        "alice",
        first.remediation.operationId,
    )


def test_an_unhealthy_event_older_than_the_nodes_latest_health_is_recorded_and_does_nothing():
    setup = Setup()
    setup.set_policy(RemediationPolicy(action="replace"))
    node = setup.node()
    assert setup.events.handle(setup.healthy(node, seconds=10)).handled == "recorded"
    late = setup.events.handle(setup.unhealthy(node, seconds=5))
    assert (late.handled, late.remediation, setup.replaces()) == ("out-of-order", None, 0)
    assert len(setup.events.node_history("demo", node).events) == 2


def test_notify_records_the_decision_and_starts_nothing():
    setup = Setup()
    outcome = setup.events.handle(setup.unhealthy(setup.node()))
    assert outcome.remediation is not None and outcome.remediation.outcome == "notified"
    assert setup.world.launcher.started == []


def test_the_policy_leaves_a_node_to_hyperpods_own_recovery():
    setup = Setup()
    setup.set_policy(RemediationPolicy(action="replace"))
    outcome = setup.events.handle(setup.unhealthy(setup.node(), repair="Replace"))
    assert outcome.remediation is not None and outcome.remediation.outcome == "left-to-hyperpod"
    assert setup.replaces() == 0


def test_record_only_and_the_group_limit_start_nothing_but_say_why():
    setup = Setup()
    policy = RemediationPolicy(action="reboot", recordOnly=True, maxActionsPerGroupPerHour=1)
    setup.set_policy(policy)
    first = setup.events.handle(setup.unhealthy(setup.node(0)))
    second = setup.events.handle(setup.unhealthy(setup.node(1), seconds=1))
    assert first.remediation is not None and first.remediation.outcome == "would-start"
    assert second.remediation is not None and second.remediation.outcome == "limited"
    assert setup.world.launcher.started == []


def test_a_state_change_wakes_cluster_and_node_waits_and_a_health_event_only_node_waits():
    setup = Setup()
    setup.waits.add(wait_key("us-west-2", HP, "cluster"), "cluster-token", "in service")
    setup.waits.add(wait_key("us-west-2", HP, "nodes"), "nodes-token", "replaced")
    setup.events.handle(setup.unhealthy(setup.node()))
    assert setup.signal.woken == ["nodes-token"]
    change = HyperPodEvent(
        eventId="c1",
        kind="ClusterStateChange",
        time=setup.world.clock.now(),
        region="us-west-2",
        clusterName=HP,
        clusterStatus="InService",
    )
    assert setup.events.handle(change).woken == 1
    assert setup.signal.woken == ["nodes-token", "cluster-token"]


def test_an_event_of_a_cluster_this_control_plane_does_not_manage_is_ignored():
    setup = Setup()
    stranger = setup.unhealthy("i-0123456789abcdef0").model_copy(update={"clusterName": "someone-elses"})
    assert setup.events.handle(stranger).handled == "not-ours"


def test_a_health_check_policy_starts_deep_health_checks_on_the_unhealthy_node():
    setup = Setup()
    setup.set_policy(RemediationPolicy(action="health-check"))
    node = setup.node()
    outcome = setup.events.handle(setup.unhealthy(node))
    assert outcome.remediation is not None and outcome.remediation.outcome == "started"
    ((kind, _, payload),) = setup.world.launcher.started
    assert kind == OperationKind.CHECK_NODE_HEALTH
    assert payload["nodes"] == [{"nodeId": node, "instanceGroup": "gpu"}]
    assert payload["checks"] == ["InstanceStress", "InstanceConnectivity"]
    (entry,) = setup.audit.entries
    assert entry.action == "POST /clusters/demo/health-checks"
