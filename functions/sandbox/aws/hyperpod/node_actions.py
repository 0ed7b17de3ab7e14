"""HyperPod nodes over simulated time: batch reboot, replace and delete (unknown nodes and nodes in another status
fail in band, as SageMaker answers), and an unhealthy node's health event and its replacement under automatic
recovery.
"""

from __future__ import annotations

from collections.abc import Callable

from sandbox.aws.hyperpod import events
from sandbox.aws.hyperpod.fleet import Where
from sandbox.aws.hyperpod.kubernetes import HEALTH_LABEL
from sandbox.aws.hyperpod.model import PENDING_REPLACEMENT, BatchOutcome, Cluster, Node, NodeFailure, validation
from sandbox.aws.hyperpod.state import SimulationState


class NodeActions(SimulationState):
    """Reboot, replace and delete nodes in batches, and the health agent's verdict on a node."""

    def reboot_nodes(self, where: Where, name: str, node_ids: list[str]) -> BatchOutcome:
        def reboot(cluster: Cluster, node: Node) -> None:
            node.status, node.message = "Pending", "Rebooting"
            self._kubernetes.patch_node(cluster, node, ready="Unknown")

            def done() -> None:
                if node in cluster.nodes and node.status == "Pending":
                    node.status, node.message = "Running", ""
                    self._kubernetes.patch_node(cluster, node, ready="False" if node.missing_permissions else "True")
                    self._events.instance_done(cluster, node, "rebooted")

            self._scheduler.later(cluster, done)

        return self._batch(where, name, node_ids, "InstanceIdNotFound", "InvalidInstanceStatus", reboot)

    def replace_nodes(self, where: Where, name: str, node_ids: list[str]) -> BatchOutcome:
        def replace(cluster: Cluster, node: Node) -> None:
            node.status, node.message = "ShuttingDown", "Replacing"
            self._scheduler.later(cluster, lambda: self._replace(cluster, node))

        return self._batch(where, name, node_ids, "InstanceIdNotFound", "InvalidInstanceStatus", replace)

    def delete_nodes(self, where: Where, name: str, node_ids: list[str]) -> BatchOutcome:
        def delete(cluster: Cluster, node: Node) -> None:
            group = cluster.groups.get(node.group)
            if group is not None:
                group.target = max(0, group.target - 1)
            node.status, node.message = "ShuttingDown", "Deleting"

            def gone() -> None:
                self._fleet.terminate(cluster, node)
                self._events.instance_done(cluster, node, "deleted")

            self._scheduler.later(cluster, gone)

        return self._batch(where, name, node_ids, "NodeIdNotFound", "InvalidNodeStatus", delete, ("Running", "Pending"))

    def mark_node_unhealthy(self, cluster_name: str, instance_id: str, repairs: bool | None = None) -> None:
        """The health agent's verdict on a node: relabelled and tainted, and its Node Health Event emitted; replaced
        later when HyperPod repairs it (`repairs`; by default, under the cluster's automatic recovery)."""
        with self.lock:
            self.advance()
            cluster = next((c[cluster_name] for c in self._clusters.values() if cluster_name in c), None)
            if cluster is None:
                raise KeyError(f"No HyperPod cluster named {cluster_name}")
            node = cluster.node(instance_id)
            if node is None:
                raise KeyError(f"Node {instance_id} is not in cluster {cluster_name}")
            node.health = PENDING_REPLACEMENT
            taint = {"key": HEALTH_LABEL, "value": "Unschedulable", "effect": "NoSchedule"}
            self._kubernetes.patch_node(cluster, node, labels={HEALTH_LABEL: node.health}, taints=([], [taint]))
            repairing = cluster.settings.automatic_recovery if repairs is None else repairs
            self._events.emit(events.node_health(cluster, node, "Unhealthy", "Replace" if repairing else "None"))
            if repairing:
                self._scheduler.later(cluster, lambda: self._replace(cluster, node))

    def _replace(self, cluster: Cluster, node: Node, operation_id: str | None = None) -> None:
        replacement = self._fleet.replace(cluster, node)
        if replacement is not None:
            self._events.instance_done(cluster, node, f"replaced by {replacement.instance_id}", operation_id)

    def _batch(
        self,
        where: Where,
        name: str,
        node_ids: list[str],
        not_found: str,
        bad_status: str,
        act: Callable[[Cluster, Node], None],
        acts_on: tuple[str, ...] = ("Running",),
    ) -> BatchOutcome:
        """Act on each node whose status is in ``acts_on``; unknown nodes and others fail in band."""
        with self.lock:
            self.advance()
            cluster = self._find(where, name)
            if not node_ids:
                raise validation("Either NodeIds or NodeLogicalIds must be specified.")
            if cluster.status in ("Creating", "Deleting"):
                raise validation(f"Cluster {cluster.name} is in {cluster.status} status.")
            successful: list[str] = []
            failed: list[NodeFailure] = []
            for node_id in node_ids:
                node = cluster.node(node_id)
                if node is None:
                    failed.append(NodeFailure(node_id, not_found, f"Node {node_id} not found."))
                elif node.status not in acts_on:
                    failed.append(NodeFailure(node_id, bad_status, f"Node {node_id} is in {node.status} status."))
                else:
                    act(cluster, node)
                    successful.append(node_id)
            return BatchOutcome(successful, failed)
