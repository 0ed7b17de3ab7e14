"""On-demand deep health checks (StartClusterHealthCheck) as an operation, planned first and confirmed.

The request names nodes, instance groups, or both; every node is resolved and checked before anything starts: an
unknown node or group is a 404, a node not Running (already in a check, rebooting, being replaced) or a group whose
instance type has no deep health checks a 409 that says what to change. A check takes each node out of scheduling
while it runs, and HyperPod reboots or replaces a node that fails it, so it starts only with its plan's token. The
workflow's steps are `health_check_steps`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from controlplane.core.auth import Actor
from controlplane.core.concurrency import each
from controlplane.core.confirmations import Confirmations, fingerprint
from controlplane.core.hyperpod.group_rules import refuse_adopted_hyperpod, require_group, supports_deep_health_checks
from controlplane.core.hyperpod.nodes import NodeNotFoundError
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.hyperpod import HyperPodGateway, HyperPodNode, InstanceGroup
from controlplane.core.ports.persistence import Clock
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction, StageName
from controlplane.models.errors import ClusterNotReadyError, ConflictError
from controlplane.models.health_checks import MAX_CHECKED_NODES, StartHealthCheckRequest
from controlplane.models.nodes import NodeTarget
from controlplane.models.operations import Operation, OperationKind

ACTION = "check-node-health"
# A group's every node: those launched since the epoch.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EFFECT = (
    "out of scheduling while the checks run (its pods keep running; new ones are not placed on it); if it fails, "
    "HyperPod reboots it or replaces it with new hardware (its root and secondary EBS volumes are then destroyed)"
)


class NodeNotInServiceError(ConflictError):
    code = "NodeNotInService"


class HealthCheckService:
    def __init__(
        self,
        clusters: ClusterService,
        operations: OperationService,
        confirmations: Confirmations,
        hyperpod: Callable[[str], HyperPodGateway],
        clock: Clock,
    ) -> None:
        self._clusters = clusters
        self._operations = operations
        self._confirmations = confirmations
        self._hyperpod = hyperpod
        self._clock = clock

    def plan(self, cluster_tag: str, request: StartHealthCheckRequest, actor: Actor) -> Plan:
        """The nodes the checks would run on, with no side effect, and the token that confirms it."""
        _, targets = self._targets(cluster_tag, request)
        token, expires_at = self._confirmations.issue(
            actor, ACTION, cluster_tag, fingerprint(_planned(targets, request.checks))
        )
        return Plan(
            actions=_planned(targets, request.checks),
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Deep health checks ({', '.join(request.checks)}) on {len(targets)} node(s) of '{cluster_tag}': "
            f"each node is {EFFECT}. Ask the person to confirm, then repeat the request with confirmationToken.",
        )

    def start(self, cluster_tag: str, request: StartHealthCheckRequest, actor: Actor) -> Operation:
        """Start the check's operation with the token of its plan; it ends when every node's check has ended."""
        record, targets = self._targets(cluster_tag, request)
        with self._confirmations.redeeming(
            request.confirmationToken or "",
            actor,
            ACTION,
            cluster_tag,
            "Repeat the health-check request for the same nodes without a token",
            fingerprint(_planned(targets, request.checks)),
        ):
            return self._operations.start(
                record,
                actor,
                OperationKind.CHECK_NODE_HEALTH,
                destructive=True,
                nodes=targets,
                checks=list(request.checks),
                requestedAt=self._clock.now(),
            )

    resumes = frozenset({OperationKind.CHECK_NODE_HEALTH})

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """Before a resume: the cluster is still the control plane's, and what the check does to its nodes."""
        refuse_adopted_hyperpod(self._ready(record.clusterTag))
        targets = [NodeTarget.model_validate(node) for node in operation.input["nodes"]]
        return Plan(actions=_planned(targets, operation.input["checks"]))

    def _targets(self, cluster_tag: str, request: StartHealthCheckRequest) -> tuple[ClusterRecord, list[NodeTarget]]:
        """Every named node and every node of the named groups, after each was found Running in a group whose
        instance type has deep health checks."""
        record = self._ready(cluster_tag)
        refuse_adopted_hyperpod(record)
        gateway = self._hyperpod(record.region)
        name = hyperpod_cluster_of(cluster_tag, record.hyperPodClusterName)
        cluster = gateway.find_cluster(name)
        if cluster is None:
            raise ClusterNotReadyError(f"Cluster '{cluster_tag}' has no HyperPod cluster.")
        groups = [require_group(cluster, group) for group in sorted(set(request.instanceGroups))]
        ids = sorted(set(request.nodeIds))
        found = each(lambda node_id: gateway.node(name, node_id), ids)
        if unknown := [node_id for node_id, node in zip(ids, found, strict=True) if node is None]:
            raise NodeNotFoundError(
                f"Not nodes of cluster '{cluster_tag}': {', '.join(unknown)}. GET /clusters/{cluster_tag}/nodes lists "
                "its nodes.",
                {"unknownNodeIds": unknown},
            )
        nodes: dict[str, HyperPodNode] = {node.node_id: node for node in found if node}
        for group in groups:
            nodes.update((node.node_id, node) for node in gateway.group_nodes_since(name, group.name, EPOCH))
        self._refuse_unfit(cluster_tag, cluster.groups, list(nodes.values()))
        return record, [
            NodeTarget(nodeId=node.node_id, instanceGroup=node.group)
            for node in sorted(nodes.values(), key=lambda node: node.node_id)
        ]

    def _refuse_unfit(self, cluster_tag: str, groups: tuple[InstanceGroup, ...], nodes: list[HyperPodNode]) -> None:
        if not nodes:
            raise NodeNotInServiceError(
                f"The named instance groups of '{cluster_tag}' have no nodes to check; name groups with nodes.",
            )
        if len(nodes) > MAX_CHECKED_NODES:
            raise NodeNotInServiceError(
                f"{len(nodes)} nodes named; one request checks at most {MAX_CHECKED_NODES}. Name fewer nodes or "
                "groups.",
                {"nodes": len(nodes)},
            )
        types = {group.name: group.instance_type for group in groups}
        if unsupported := sorted({n.group for n in nodes if not supports_deep_health_checks(types.get(n.group))}):
            raise NodeNotInServiceError(
                f"Instance group(s) {', '.join(unsupported)} of '{cluster_tag}' run an instance type without deep "
                "health checks (GPU and Trainium instances have them); leave their nodes out.",
                {"instanceGroups": unsupported},
            )
        if busy := sorted((node for node in nodes if node.status != "Running"), key=lambda node: node.node_id):
            states = ", ".join(f"{node.node_id} is {node.status}" for node in busy)
            raise NodeNotInServiceError(
                f"Only Running nodes can be checked: {states}. Wait until they are Running (GET "
                f"/clusters/{cluster_tag}/nodes), or leave them out.",
                {"nodes": [{"nodeId": node.node_id, "status": node.status} for node in busy]},
            )

    def _ready(self, cluster_tag: str) -> ClusterRecord:
        record = self._clusters.get(cluster_tag)
        if StageName.HYPERPOD.value not in record.stagesDone:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' has no HyperPod cluster yet; finish stage 4 first.",
                {"stagesDone": record.stagesDone},
            )
        return record


def _planned(targets: list[NodeTarget], checks: Sequence[str]) -> list[PlannedAction]:
    return [
        PlannedAction(
            action="update",
            resource="HyperPod node",
            name=target.nodeId,
            detail=f"deep health checks {', '.join(checks)} in group {target.instanceGroup}: {EFFECT}",
        )
        for target in targets
    ]
