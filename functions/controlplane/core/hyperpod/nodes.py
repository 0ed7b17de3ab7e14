"""HyperPod nodes: the live list with health, and reboot / replace / delete, each an operation.

Every node id is checked first (nothing starts if one is unknown); the operation's workflow makes the batch call
and waits until each node has settled (`node_steps`), so `operation_wait` follows a node action as it follows
everything else. Each is planned first and starts only with the plan's confirmation token: replace and delete destroy
what the node holds, and a reboot stops the pods running on it.
"""

from __future__ import annotations

from collections.abc import Callable

from controlplane.core.auth import Actor
from controlplane.core.concurrency import each, together
from controlplane.core.confirmations import Confirmations, fingerprint
from controlplane.core.hyperpod.group_rules import refuse_adopted_hyperpod
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, KubernetesNode
from controlplane.core.ports.persistence import Clock
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction, StageName
from controlplane.models.common import DEFAULT_PAGE_SIZE, KUBERNETES_NODE_PREFIX
from controlplane.models.errors import ClusterNotReadyError, NotFoundError
from controlplane.models.nodes import NodeAction, NodeList, NodeTarget, NodeView
from controlplane.models.operations import Operation, OperationKind
from controlplane.models.status import HEALTH_LABEL, ZONE_LABEL

ACTION_EFFECTS = {
    "reboot": "soft reboot (EC2 RebootInstances): the pods on it stop until it is back; volumes are kept",
    "replace": "terminated and replaced by new hardware; its root and secondary EBS volumes are DESTROYED",
    "delete": "terminated and removed; the group's target count drops by one",
}
KIND_OF_ACTION: dict[NodeAction, OperationKind] = {
    "reboot": OperationKind.REBOOT_NODES,
    "replace": OperationKind.REPLACE_NODES,
    "delete": OperationKind.DELETE_NODES,
}


class NodeNotFoundError(NotFoundError):
    code = "NodeNotFound"


class NodeService:
    def __init__(
        self,
        clusters: ClusterService,
        operations: OperationService,
        confirmations: Confirmations,
        hyperpod: Callable[[str], HyperPodGateway],
        eks: Callable[[str], EksGateway],
        kubernetes: KubernetesGateway,
        clock: Clock,
    ) -> None:
        self._clusters = clusters
        self._operations = operations
        self._confirmations = confirmations
        self._clock = clock
        self._hyperpod = hyperpod
        self._eks = eks
        self._kubernetes = kubernetes

    def list_nodes(self, cluster_tag: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None) -> NodeList:
        """A page of ListClusterNodes joined with the groups' capacity type and the Kubernetes nodes' health and
        zone. HyperPod's cluster is read while the page is, and then the Kubernetes facts of that page's nodes only
        (each by name), so a page costs its size whatever the cluster's."""
        record = self._ready(cluster_tag)
        gateway = self._hyperpod(record.region)
        name = hyperpod_cluster_of(cluster_tag, record.hyperPodClusterName)
        (cluster, page), eks = together(
            lambda: together(lambda: gateway.find_cluster(name), lambda: gateway.node_page(name, limit, token)),
            lambda: self._eks(record.region).find_cluster(record.eksClusterName),
        )
        if cluster is None:
            raise ClusterNotReadyError(f"Cluster '{cluster_tag}' has no HyperPod cluster.")
        capacity = {group.name: group.capacity_type for group in cluster.groups}
        kubernetes = self._kubernetes_nodes(eks, record.region, [node.node_id for node in page.items])
        views = []
        for node in page.items:
            registered = kubernetes.get(node.node_id)
            views.append(
                NodeView(
                    nodeId=node.node_id,
                    instanceGroup=node.group,
                    instanceType=node.instance_type,
                    status=node.status,
                    statusMessage=node.message,
                    health=registered.labels.get(HEALTH_LABEL) if registered else None,
                    ready=registered.ready if registered else None,
                    schedulable=registered.schedulable if registered else None,
                    capacityType=capacity.get(node.group, "on-demand"),
                    availabilityZone=registered.labels.get(ZONE_LABEL) if registered else None,
                    launchTime=node.launch_time,
                    imageReleaseVersion=node.image_version,
                )
            )
        return NodeList(clusterTag=cluster_tag, nodes=views, continue_=page.next_token)

    def plan(self, cluster_tag: str, action: NodeAction, node_ids: list[str], actor: Actor) -> Plan:
        """What the action would do to each node, with no side effect, and the token that confirms it."""
        _, targets = self._targets(cluster_tag, node_ids)
        ids = [target.nodeId for target in targets]
        token, expires_at = self._confirmations.issue(
            actor, f"{action}-nodes", _target(cluster_tag, ids), fingerprint(targets)
        )
        return Plan(
            actions=_planned(action, ids),
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"{action.capitalize()} of {len(ids)} node(s) on '{cluster_tag}': {ACTION_EFFECTS[action]}. "
            "Ask the person to confirm, then repeat the request with confirmationToken.",
        )

    def act(
        self, cluster_tag: str, action: NodeAction, node_ids: list[str], token: str | None, actor: Actor
    ) -> Operation:
        """Start the action's operation once every id is known, with the token of its plan; its workflow makes the
        batch call and waits for the nodes."""
        record, targets = self._targets(cluster_tag, node_ids)
        ids = [target.nodeId for target in targets]
        with self._confirmations.redeeming(
            token or "",
            actor,
            f"{action}-nodes",
            _target(cluster_tag, ids),
            f"Repeat the {action} request for the same nodes without a token",
            fingerprint(targets),
        ):
            return self._operations.start(
                record,
                actor,
                KIND_OF_ACTION[action],
                destructive=True,
                nodes=targets,
                requestedAt=self._clock.now(),
            )

    resumes = frozenset(KIND_OF_ACTION.values())

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """Before a resume, the checks of the node request against the cluster as it is now (its HyperPod cluster is
        the control plane's), and what the action does to the nodes it names (those it already replaced or deleted
        are gone, so they are not looked up again)."""
        refuse_adopted_hyperpod(self._ready(record.clusterTag))
        action = next(action for action, kind in KIND_OF_ACTION.items() if kind == operation.kind)
        ids = [NodeTarget.model_validate(node).nodeId for node in operation.input["nodes"]]
        return Plan(actions=_planned(action, ids))

    def _targets(self, cluster_tag: str, node_ids: list[str]) -> tuple[ClusterRecord, list[NodeTarget]]:
        """The record, and each node with its group, after DescribeClusterNode found every one of them."""
        record = self._ready(cluster_tag)
        refuse_adopted_hyperpod(record)
        gateway = self._hyperpod(record.region)
        name = hyperpod_cluster_of(cluster_tag, record.hyperPodClusterName)
        ids = sorted(set(node_ids))
        found = each(lambda node_id: gateway.node(name, node_id), ids)
        unknown = [node_id for node_id, node in zip(ids, found, strict=True) if node is None]
        if unknown:
            raise NodeNotFoundError(
                f"Not nodes of cluster '{cluster_tag}': {', '.join(unknown)}. GET /clusters/{cluster_tag}/nodes lists "
                "its nodes.",
                {"unknownNodeIds": unknown},
            )
        return record, [NodeTarget(nodeId=node.node_id, instanceGroup=node.group) for node in found if node]

    def _ready(self, cluster_tag: str) -> ClusterRecord:
        record = self._clusters.get(cluster_tag)
        if StageName.HYPERPOD.value not in record.stagesDone:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' has no HyperPod cluster yet; finish stage 4 first.",
                {"stagesDone": record.stagesDone},
            )
        return record

    def _kubernetes_nodes(self, eks: EksCluster | None, region: str, node_ids: list[str]) -> dict[str, KubernetesNode]:
        """These nodes' Kubernetes nodes by EC2 instance id (HyperPod names nodes hyperpod-<instance id>)."""
        if eks is None or eks.status != "ACTIVE" or not node_ids:
            return {}
        names = [f"{KUBERNETES_NODE_PREFIX}{node_id}" for node_id in node_ids]
        found = self._kubernetes.nodes_named(eks, region, names)
        return {node.name.removeprefix(KUBERNETES_NODE_PREFIX): node for node in found}


def _target(cluster_tag: str, ids: list[str]) -> str:
    return f"{cluster_tag}:{','.join(ids)}"


def _planned(action: NodeAction, ids: list[str]) -> list[PlannedAction]:
    return [
        PlannedAction(
            action="delete" if action == "delete" else "update",
            resource="HyperPod node",
            name=node_id,
            detail=ACTION_EFFECTS[action],
        )
        for node_id in ids
    ]
