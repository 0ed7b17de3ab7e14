"""The EventBridge events the simulated HyperPod emits, in the documented shapes (source `aws.sagemaker`): a
Cluster State Change when a cluster's status changes (only then: HyperPod's "cluster status transitions"; a node
rebooted or replaced, or a group scaled under continuous provisioning, leaves the cluster InService and sends none),
a Node Health Event when a node is marked unhealthy, and, for clusters that provision continuously (the only ones
with cluster events, per the HyperPod cluster events reference), an Info-level Cluster Event about an instance when
its reboot, replacement or deletion is done, or its deep health check starts or ends, and about an instance group
when a Scaling operation created or resized it (kept for ListClusterEvents).

Times carry milliseconds (EventBridge's own have seconds), so that two changes in one simulated second keep their
order.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from controlplane.adapters.aws.eventbridge import CLUSTER_EVENT, NODE_HEALTH, SOURCE, STATE_CHANGE
from sandbox.aws.hyperpod.model import Cluster, JsonObject, Node


class Emitter:
    """Hands each event to the listeners (called under the simulation's lock: they queue, they do not act)."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[JsonObject], None]] = []

    def listen(self, listener: Callable[[JsonObject], None]) -> None:
        self._listeners.append(listener)

    def emit(self, event: JsonObject) -> None:
        for listener in self._listeners:
            listener(event)

    def status(self, cluster: Cluster) -> None:
        """The cluster's state change event, when its status is not the one its last event carried."""
        if cluster.status != cluster.reported_status:
            cluster.reported_status = cluster.status
            self.emit(state_change(cluster))

    def instance_done(self, cluster: Cluster, node: Node, done: str, operation_id: str | None = None) -> None:
        """The Cluster Event saying what was `done` to an instance (continuous only), emitted and kept on the cluster
        for ListClusterEvents; `operation_id` names the cluster operation it belongs to (a deep health check)."""
        if cluster.settings.continuous:
            what = f"Instance {node.instance_id} in cluster {cluster.name} and instance group {node.group} {done}"
            self._record(cluster, instance_event(cluster, node, what, operation_id))

    def group_done(self, cluster: Cluster, group: str, done: str, operation_id: str) -> None:
        """The Cluster Event saying what was `done` to an instance group by a Scaling operation (continuous only)."""
        if cluster.settings.continuous:
            what = f"Instance group {group} in cluster {cluster.name} {done}"
            self._record(cluster, cluster_event(cluster, "InstanceGroup", what, operation_id, group=group))

    def _record(self, cluster: Cluster, event: JsonObject) -> None:
        recorded = dict(event["detail"]["EventDetails"])
        recorded["EventTime"] = recorded["EventTime"] / 1000
        cluster.events.append(recorded)
        self.emit(event)


def state_change(cluster: Cluster) -> JsonObject:
    groups = [
        {
            "InstanceGroupName": group.name,
            "CurrentCount": len(cluster.running_nodes(group.name)),
            "TargetCount": group.target,
            "Status": cluster.group_status(group),
        }
        for group in cluster.groups.values()
    ]
    detail = {
        "ClusterArn": cluster.arn,
        "ClusterName": cluster.name,
        "ClusterStatus": cluster.status,
        "CreationTime": int(cluster.created * 1000),
        "InstanceGroups": groups,
        "NodeRecovery": "Automatic" if cluster.settings.automatic_recovery else "None",
    }
    return _envelope(cluster, STATE_CHANGE, detail)


def node_health(cluster: Cluster, node: Node, health: str, repair_action: str) -> JsonObject:
    detail = {
        "ClusterName": cluster.name,
        "ClusterArn": cluster.arn,
        "InstanceId": node.instance_id,
        "Tags": {},
        "HealthSummary": {
            "HealthStatus": health,
            "HealthStatusReason": "The health monitoring agent detected fault type NvidiaErrorTerminate (simulated).",
            "RepairAction": repair_action,
            "Recommendation": "Replace the node." if repair_action == "None" else "HyperPod replaces the node.",
        },
    }
    return _envelope(cluster, NODE_HEALTH, detail)


def instance_event(cluster: Cluster, node: Node, description: str, operation_id: str | None = None) -> JsonObject:
    """An Info-level Cluster Event about one instance (ResourceType Instance)."""
    return cluster_event(cluster, "Instance", description, operation_id, group=node.group, instance=node.instance_id)


def cluster_event(
    cluster: Cluster,
    resource_type: str,
    description: str,
    operation_id: str | None,
    group: str | None = None,
    instance: str | None = None,
) -> JsonObject:
    """An Info-level Cluster Event about an instance group or one of its instances."""
    detail = {
        "EventDetails": {
            "EventId": str(uuid.uuid4()),
            "ClusterArn": cluster.arn,
            "ClusterName": cluster.name,
            "InstanceGroupName": group,
            "InstanceId": instance,
            "ResourceType": resource_type,
            "EventTime": int(datetime.now(UTC).timestamp() * 1000),
            "EventLevel": "Info",
            "Description": f"{description} (simulated)",
        }
    }
    detail["EventDetails"] = {
        key: value
        for key, value in {**detail["EventDetails"], "OperationId": operation_id}.items()
        if value is not None
    }
    return _envelope(cluster, CLUSTER_EVENT, detail)


def _envelope(cluster: Cluster, detail_type: str, detail: JsonObject) -> JsonObject:
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": detail_type,
        "source": SOURCE,
        "account": cluster.account,
        "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "region": cluster.region,
        "resources": [cluster.arn],
        "detail": detail,
    }
