"""On-demand deep health checks (StartClusterHealthCheck) over simulated time.

The request is checked whole before any node changes, as SageMaker refuses it: an unknown group, a node not in its
group, a node not Running, an instance type without deep health checks. Each node is then DeepHealthCheckInProgress,
out of scheduling (the health agent's label and taint, and `deep-health-check-status` InProgress), and its check ends
one transition later: Passed and back in service, or, for a node given a fault (`fail_health_check`), Failed and
rebooted or replaced, as HyperPod recovers a node that fails its checks. On a cluster that provisions continuously,
the request is a DeepHealthCheck cluster operation (ListClusterOperations) and each node's start and end a cluster
event naming it.
"""

from __future__ import annotations

import time
import uuid

from controlplane.models.instance_types import instance_type as lookup_instance_type
from sandbox.aws.hyperpod.kubernetes import HEALTH_LABEL
from sandbox.aws.hyperpod.model import PENDING_REPLACEMENT, SCHEDULABLE, Cluster, JsonObject, Node, validation
from sandbox.aws.hyperpod.node_actions import NodeActions
from sandbox.aws.hyperpod.state import Where

DEEP_HEALTH_LABEL = "sagemaker.amazonaws.com/deep-health-check-status"
IN_CHECK = "DeepHealthCheckInProgress"
UNSCHEDULABLE_TAINT = {"key": HEALTH_LABEL, "value": "Unschedulable", "effect": "NoSchedule"}
RECOVERIES = ("reboot", "replace")


class HealthChecks(NodeActions):
    """Deep health checks on chosen nodes, and the faults that make a node fail its next check."""

    def start_health_check(self, where: Where, name: str, configurations: list[JsonObject]) -> Cluster:
        with self.lock:
            self.advance()
            cluster = self._find(where, name)
            if cluster.status != "InService":
                raise validation(f"Cluster {cluster.name} is in {cluster.status} status.")
            checked = [node for item in configurations for node in self._checked_nodes(cluster, item)]
            checks = sorted({check for item in configurations for check in item["DeepHealthChecks"]})
            operation = _operation(cluster, {node.instance_id for node in checked})
            for node in checked:
                self._begin(cluster, node, checks, operation)
            return cluster

    def fail_health_check(self, cluster_name: str, instance_id: str, recovery: str = "replace") -> None:
        """The node's next deep health check fails, and HyperPod then `recovery`s it (reboot or replace)."""
        if recovery not in RECOVERIES:
            raise ValueError(f"recovery must be one of {', '.join(RECOVERIES)}")
        with self.lock:
            cluster = next((c[cluster_name] for c in self._clusters.values() if cluster_name in c), None)
            node = cluster.node(instance_id) if cluster else None
            if node is None:
                raise KeyError(f"Node {instance_id} is not in cluster {cluster_name}")
            node.health_check_fault = recovery

    def _checked_nodes(self, cluster: Cluster, item: JsonObject) -> list[Node]:
        group_name = item["InstanceGroupName"]
        group = cluster.groups.get(group_name)
        if group is None:
            raise validation(f"Instance group {group_name} does not exist in cluster {cluster.name}.")
        known = lookup_instance_type(group.spec.launch_type)
        if known is not None and not known.deep_health_checks:
            raise validation(
                f"Instance group {group_name}: deep health checks are not supported for instance type {known.name}."
            )
        ids = item.get("InstanceIds") or [node.instance_id for node in cluster.group_nodes(group_name)]
        nodes = []
        for node_id in ids:
            node = cluster.node(node_id)
            if node is None or node.group != group_name:
                raise validation(f"Instance {node_id} is not in instance group {group_name}.")
            if node.status != "Running":
                raise validation(f"Instance {node_id} is in {node.status} status.")
            nodes.append(node)
        return nodes

    def _begin(self, cluster: Cluster, node: Node, checks: list[str], operation: _Operation) -> None:
        node.status, node.message = IN_CHECK, f"Deep health checks: {', '.join(checks)}"
        node.health = "Unschedulable"
        labels = {HEALTH_LABEL: node.health, DEEP_HEALTH_LABEL: "InProgress"}
        self._kubernetes.patch_node(cluster, node, labels=labels, taints=([], [UNSCHEDULABLE_TAINT]))
        self._events.instance_done(cluster, node, f"started deep health checks {', '.join(checks)}", operation.id)
        self._scheduler.later(cluster, lambda: self._end(cluster, node, operation))

    def _end(self, cluster: Cluster, node: Node, operation: _Operation) -> None:
        if node not in cluster.nodes or node.status != IN_CHECK:
            operation.done(node)
            return
        fault, node.health_check_fault = node.health_check_fault, None
        if fault is None:
            self._back_in_service(cluster, node, "Passed")
            self._events.instance_done(cluster, node, "passed its deep health checks", operation.id)
            operation.done(node)
        elif fault == "reboot":
            node.status, node.message = "Pending", "Rebooting after failed deep health checks"
            self._kubernetes.patch_node(cluster, node, labels={DEEP_HEALTH_LABEL: "Failed"}, ready="Unknown")

            def rebooted() -> None:
                if node in cluster.nodes and node.status == "Pending":
                    self._back_in_service(cluster, node, "Failed")
                    what = "failed its deep health checks and was rebooted"
                    self._events.instance_done(cluster, node, what, operation.id)
                operation.done(node)

            self._scheduler.later(cluster, rebooted)
        else:
            node.status, node.message = "ShuttingDown", "Replacing after failed deep health checks"
            node.health = PENDING_REPLACEMENT
            labels = {HEALTH_LABEL: node.health, DEEP_HEALTH_LABEL: "Failed"}
            self._kubernetes.patch_node(cluster, node, labels=labels)

            def replaced() -> None:
                self._replace(cluster, node, operation.id)
                operation.done(node)

            self._scheduler.later(cluster, replaced)

    def _back_in_service(self, cluster: Cluster, node: Node, verdict: str) -> None:
        node.status, node.message, node.health = "Running", "", SCHEDULABLE
        labels = {HEALTH_LABEL: node.health, DEEP_HEALTH_LABEL: verdict}
        self._kubernetes.patch_node(cluster, node, labels=labels, taints=([UNSCHEDULABLE_TAINT], []), ready="True")


class _Operation:
    """A DeepHealthCheck cluster operation (ListClusterOperations): InProgress until every node's check has ended."""

    def __init__(self, summary: JsonObject, pending: set[str]) -> None:
        self.summary = summary
        self._pending = pending

    @property
    def id(self) -> str:
        return str(self.summary["OperationId"])

    def done(self, node: Node) -> None:
        self._pending.discard(node.instance_id)
        if not self._pending:
            self.summary["Status"] = "Done"


def _operation(cluster: Cluster, node_ids: set[str]) -> _Operation:
    summary = {
        "OperationId": str(uuid.uuid4()),
        "ClusterArn": cluster.arn,
        "Type": "DeepHealthCheck",
        "Status": "InProgress",
        "CreationTime": time.time(),
    }
    if cluster.settings.continuous:
        cluster.operations.append(summary)
    return _Operation(summary, node_ids)
