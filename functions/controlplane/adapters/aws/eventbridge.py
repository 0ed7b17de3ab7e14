"""HyperPod's EventBridge events: the rule patterns (the CDK rules, the other Regions' forwarding rules and the
sandbox's router all use these) and the translation of one event's wire shape into the core's `HyperPodEvent`.

The detail fields are documented as unstructured where they are text (`HealthStatusReason`, `Recommendation`);
only the fields the control plane acts on are read. An event without HyperPod's own EventId is keyed by its own
facts (cluster, status or node and health, time), so that the copies HyperPod may send of one change share a key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from controlplane.models.events import EventKind, HyperPodEvent

SOURCE = "aws.sagemaker"
STATE_CHANGE = "SageMaker HyperPod Cluster State Change"
NODE_HEALTH = "SageMaker HyperPod Cluster Node Health Event"
CLUSTER_EVENT = "SageMaker HyperPod Cluster Event"
KINDS: dict[str, EventKind] = {
    STATE_CHANGE: "ClusterStateChange",
    NODE_HEALTH: "NodeHealth",
    CLUSTER_EVENT: "ClusterEvent",
}
PATTERNS: dict[str, dict[str, Any]] = {
    "ClusterStateChange": {"source": [SOURCE], "detail-type": [STATE_CHANGE]},
    "NodeHealth": {"source": [SOURCE], "detail-type": [NODE_HEALTH]},
    "ClusterEvent": {
        "source": [SOURCE],
        "detail-type": [CLUSTER_EVENT],
        "detail": {"EventDetails": {"EventLevel": ["Error"]}},
    },
    # A node's reboot, replacement or deletion is done: HyperPod says so in an Info (or Warn) Cluster Event about the
    # instance, and sends no state change (the cluster stays InService), so the node waits need these.
    "InstanceEvent": {
        "source": [SOURCE],
        "detail-type": [CLUSTER_EVENT],
        "detail": {"EventDetails": {"ResourceType": ["Instance"], "EventLevel": ["Info", "Warn"]}},
    },
}
"""One EventBridge rule per pattern, on the default bus (Cluster Events: every Error, and an instance's others)."""
FORWARDED_PATTERN: dict[str, Any] = {"$or": list(PATTERNS.values())}
"""What another Region's forwarding rule sends to the home bus: whatever one of the home rules matches."""


class NotAHyperPodEventError(ValueError):
    """The event is not one of the three HyperPod detail-types, or lacks the cluster it is about."""


def parse(event: Mapping[str, Any]) -> HyperPodEvent:
    kind = KINDS.get(str(event.get("detail-type", "")))
    detail = event.get("detail") or {}
    if kind is None or event.get("source") != SOURCE:
        raise NotAHyperPodEventError(f"Not a HyperPod event: {event.get('source')} / {event.get('detail-type')}")
    if kind == "ClusterEvent":
        detail = detail.get("EventDetails") or {}
    cluster = detail.get("ClusterName")
    if not cluster:
        raise NotAHyperPodEventError(f"A {kind} event without ClusterName")
    time = _time(detail.get("EventTime")) if kind == "ClusterEvent" else _iso(event.get("time"))
    health = detail.get("HealthSummary") or {}
    facts: dict[str, Any] = {
        "kind": kind,
        "time": time,
        "region": str(event.get("region", "")),
        "clusterName": str(cluster),
        "clusterArn": detail.get("ClusterArn") or next(iter(event.get("resources") or []), None),
        "clusterStatus": detail.get("ClusterStatus"),
        "instanceId": detail.get("InstanceId"),
        "instanceGroup": detail.get("InstanceGroupName"),
        "healthStatus": health.get("HealthStatus"),
        "repairAction": health.get("RepairAction"),
        "level": detail.get("EventLevel"),
        "description": detail.get("Description") or health.get("HealthStatusReason") or detail.get("FailureMessage"),
    }
    event_id = detail.get("EventId") or _key(facts)
    return HyperPodEvent(eventId=str(event_id), **facts)


def _key(facts: Mapping[str, Any]) -> str:
    """(ClusterArn, ClusterStatus or node and health, time): what the copies of one change have in common."""
    parts = [facts["kind"], facts["clusterArn"] or facts["clusterName"], facts["clusterStatus"], facts["instanceId"]]
    parts += [facts["healthStatus"], facts["time"].isoformat()]
    return hashlib.sha256("|".join(str(part) for part in parts).encode()).hexdigest()[:32]


def _iso(value: Any) -> datetime:
    if not value:
        raise NotAHyperPodEventError("An event without time")
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _time(epoch_ms: Any) -> datetime:
    if epoch_ms is None:
        raise NotAHyperPodEventError("A Cluster Event without EventTime")
    return datetime.fromtimestamp(int(epoch_ms) / 1000, tz=UTC)
