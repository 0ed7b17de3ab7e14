"""The EventBridge events the simulated HyperPod emits, in the documented shapes (source `aws.sagemaker`): a
Cluster State Change after every transition of a cluster, a Node Health Event when a node is marked unhealthy.

Times carry milliseconds (EventBridge's own have seconds), so that two changes in one simulated second keep their
order.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from controlplane.adapters.aws.eventbridge import NODE_HEALTH, SOURCE, STATE_CHANGE
from sandbox.aws.hyperpod.model import Cluster, JsonObject, Node


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
