"""HyperPod nodes: the live list with health, and reboot / replace / delete through the batch APIs.

Node actions are single AWS calls, so they answer synchronously with per-node outcomes (HyperPod reports
partial failures in-band). Replace and delete are destructive: a plan with a confirmation token comes first.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext

from controlplane.core.auth import Actor
from controlplane.core.clusters.registry import ClusterService
from controlplane.core.concurrency import each, together
from controlplane.core.confirmations import Confirmations
from controlplane.core.hyperpod.group_rules import refuse_adopted_hyperpod
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, KubernetesNode
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction, StageName
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.errors import ClusterNotReadyError, NotFoundError
from controlplane.models.nodes import NodeAction, NodeActionResult, NodeFailure, NodeList, NodeView
from controlplane.models.status import HEALTH_LABEL, ZONE_LABEL

CONFIRMED_ACTIONS = {"replace", "delete"}
# HyperPod registers each instance in Kubernetes as hyperpod-<EC2 instance id>.
KUBERNETES_NODE_PREFIX = "hyperpod-"
ACTION_EFFECTS = {
    "reboot": "soft reboot (EC2 RebootInstances); volumes are kept",
    "replace": "terminated and replaced by new hardware; its root and secondary EBS volumes are DESTROYED",
    "delete": "terminated and removed; the group's target count drops by one",
}


class NodeNotFoundError(NotFoundError):
    code = "NodeNotFound"


class NodeService:
    def __init__(
        self,
        clusters: ClusterService,
        confirmations: Confirmations,
        hyperpod: Callable[[str], HyperPodGateway],
        eks: Callable[[str], EksGateway],
        kubernetes: KubernetesGateway,
    ) -> None:
        self._clusters = clusters
        self._confirmations = confirmations
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

    def act(
        self,
        cluster_tag: str,
        action: NodeAction,
        node_ids: list[str],
        token: str | None,
        actor: Actor,
        dry_run: bool = False,
    ) -> NodeActionResult:
        """Check every id with DescribeClusterNode first (nothing happens if one is unknown), then make the batch
        call. A dry run, and replace or delete without a token, return the plan instead (with a token for those two)."""
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
        target = f"{cluster_tag}:{','.join(ids)}"
        if dry_run or (action in CONFIRMED_ACTIONS and not token):
            return self._plan(cluster_tag, action, ids, target, actor)
        confirmed = (
            self._confirmations.redeeming(
                token or "",
                actor,
                f"{action}-nodes",
                target,
                f"Repeat the {action} request for the same nodes without a token",
            )
            if action in CONFIRMED_ACTIONS
            else nullcontext()
        )
        with confirmed:
            outcome = gateway.node_action(name, action, ids)
        return NodeActionResult(
            action=action,
            successful=list(outcome.successful),
            failed=[NodeFailure(nodeId=item.node_id, code=item.code, message=item.message) for item in outcome.failed],
        )

    def _plan(self, cluster_tag: str, action: str, ids: list[str], target: str, actor: Actor) -> NodeActionResult:
        if action not in CONFIRMED_ACTIONS:
            return NodeActionResult(
                action=action,  # type: ignore[arg-type]
                plan=Plan(
                    actions=[
                        PlannedAction(
                            action="update", resource="HyperPod node", name=node_id, detail=ACTION_EFFECTS[action]
                        )
                        for node_id in ids
                    ],
                    message="Dry run: nothing was done.",
                ),
            )
        token, expires_at = self._confirmations.issue(actor, f"{action}-nodes", target)
        return NodeActionResult(
            action=action,  # type: ignore[arg-type]
            plan=Plan(
                actions=[
                    PlannedAction(
                        action="delete" if action == "delete" else "update",
                        resource="HyperPod node",
                        name=node_id,
                        detail=ACTION_EFFECTS[action],
                    )
                    for node_id in ids
                ],
                confirmationToken=token,
                expiresAt=expires_at,
                message=f"{action.capitalize()} of {len(ids)} node(s) on '{cluster_tag}': {ACTION_EFFECTS[action]}. "
                "Ask the person to confirm, then repeat the request with confirmationToken.",
            ),
        )

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
