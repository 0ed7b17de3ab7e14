"""Remediation: the cluster's policy (notify | reboot | replace | health-check, limits, dry run; set through
`policy`) applied to an unhealthy node.

HyperPod's own automatic recovery comes first: the policy acts only when the event says HyperPod repairs nothing
(`RepairAction` None) and the node is still Running (not already rebooting, replaced or gone). It then starts the
same node operation the API starts (`OperationService.start`, the node-action workflow), audited as the policy's
action, within the limits per hour on the cluster and per instance group. Every decision is recorded beside the
event, so the node's history says what was done and why; a dry run records what would have been done.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from controlplane.core.auth import Actor, Role
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.events import EventStore
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.persistence import AuditLog, Clock
from controlplane.core.registry import ClusterService
from controlplane.models.audit import AuditEntry
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import ClusterBusyError
from controlplane.models.events import (
    NO_REPAIR,
    EventRecord,
    HyperPodEvent,
    RemediationOutcome,
    RemediationPolicy,
    RemediationPolicyView,
)
from controlplane.models.health_checks import DEFAULT_CHECKS
from controlplane.models.nodes import NodeTarget
from controlplane.models.operations import OperationKind

POLICY_ACTOR = "remediation-policy"
WINDOW = timedelta(hours=1)
KINDS = {
    "reboot": OperationKind.REBOOT_NODES,
    "replace": OperationKind.REPLACE_NODES,
    "health-check": OperationKind.CHECK_NODE_HEALTH,
}
# Each action's route, as the audit trail records it.
ROUTES = {"reboot": "nodes/{node}/reboot", "replace": "nodes/{node}/replace", "health-check": "health-checks"}
COUNTED: set[RemediationOutcome] = {"started", "would-start"}


class RemediationService:
    def __init__(
        self,
        clusters: ClusterService,
        store: EventStore,
        operations: OperationService,
        hyperpod: Callable[[str], HyperPodGateway],
        audit: AuditLog,
        clock: Clock,
    ) -> None:
        self._clusters = clusters
        self._store = store
        self._operations = operations
        self._hyperpod = hyperpod
        self._audit = audit
        self._clock = clock

    def on_unhealthy(self, record: ClusterRecord, event: HyperPodEvent) -> EventRecord:
        """Decide, act if the policy and its limits allow, and record the decision."""
        policy = self._store.policy(record.clusterTag) or RemediationPolicyView(clusterTag=record.clusterTag)
        node_id = event.instanceId or ""
        gateway = self._hyperpod(record.region)
        node = gateway.node(hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName), node_id)
        group = node.group if node else event.instanceGroup
        decision = _Decision(record.clusterTag, event, policy, group)
        if event.repairAction and event.repairAction != NO_REPAIR:
            return self._note(decision, "left-to-hyperpod", f"HyperPod's recovery acts: {event.repairAction}.")
        if node is None or node.status != "Running":
            state = node.status if node else "gone"
            return self._note(decision, "not-running", f"The node is {state}: HyperPod is already handling it.")
        if policy.action == "notify":
            return self._note(decision, "notified", "Policy notify: recorded only.")
        limit = self._limit(policy, record.clusterTag, group)
        if limit:
            return self._note(decision, "limited", limit)
        if policy.recordOnly:
            return self._note(decision, "would-start", f"Dry run: would {policy.action} {node_id}.")
        actor = Actor(principal=POLICY_ACTOR, role=Role.ADMIN, request_id=event.eventId)
        try:
            checks: dict[str, Any] = {"checks": list(DEFAULT_CHECKS)} if policy.action == "health-check" else {}
            operation = self._operations.start(
                record,
                actor,
                KINDS[policy.action],
                nodes=[NodeTarget(nodeId=node_id, instanceGroup=node.group)],
                requestedAt=self._clock.now(),
                **checks,
            )
        except ClusterBusyError as error:
            return self._note(decision, "busy", f"Not started: {error}")
        self._audit.record(
            AuditEntry(
                target=record.clusterTag,
                at=self._clock.now(),
                actor=POLICY_ACTOR,
                onBehalfOf=policy.updatedBy,
                role="admin",
                action=f"POST /clusters/{record.clusterTag}/{ROUTES[policy.action].format(node=node_id)}",
                operationId=operation.operationId,
                requestId=event.eventId,
                outcome="202",
            )
        )
        return self._note(decision, "started", f"Policy {policy.action}: started.", operation.operationId)

    def _limit(self, policy: RemediationPolicy, cluster_tag: str, group: str | None) -> str | None:
        """Why the limits forbid another action now, or None."""
        acted = [
            record
            for record in self._store.since(cluster_tag, self._clock.now() - WINDOW)
            if record.kind == "Remediation" and record.outcome in COUNTED
        ]
        if len(acted) >= policy.maxActionsPerHour:
            return (
                f"Limit reached: {len(acted)} action(s) on the cluster in the last hour "
                f"(max {policy.maxActionsPerHour})."
            )
        in_group = [record for record in acted if record.instanceGroup == group]
        if len(in_group) >= policy.maxActionsPerGroupPerHour:
            return (
                f"Limit reached: {len(in_group)} action(s) in group {group} in the last hour "
                f"(max {policy.maxActionsPerGroupPerHour})."
            )
        return None

    def _note(
        self, decision: _Decision, outcome: RemediationOutcome, description: str, operation_id: str | None = None
    ) -> EventRecord:
        record = EventRecord(
            eventId=f"remediation-{decision.event.eventId}",
            clusterTag=decision.cluster_tag,
            kind="Remediation",
            time=self._clock.now(),
            instanceId=decision.event.instanceId,
            instanceGroup=decision.group,
            healthStatus=decision.event.healthStatus,
            repairAction=decision.event.repairAction,
            description=description,
            action=decision.policy.action,
            outcome=outcome,
            operationId=operation_id,
        )
        self._store.add(record)
        return record


class _Decision:
    def __init__(self, cluster_tag: str, event: HyperPodEvent, policy: RemediationPolicyView, group: str | None):
        self.cluster_tag = cluster_tag
        self.event = event
        self.policy = policy
        self.group = group
