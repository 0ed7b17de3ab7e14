"""A cluster's events from both sources, one list: HyperPod's own (ListClusterEvents, continuous provisioning) and
Kubernetes' Warning events."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from controlplane.models.common import PageView, View

EventSource = Literal["hyperpod", "kubernetes"]


class ClusterEventView(View):
    """One event. HyperPod's carry its level, resource type, group, node and operation; Kubernetes' its object,
    reason, namespace and count (level Warning)."""

    source: EventSource
    eventId: str = Field(description="HyperPod's EventId, or the Kubernetes event's uid.")
    time: datetime
    level: str | None = None
    description: str | None = None
    resourceType: str | None = Field(default=None, description="HyperPod's: Cluster, InstanceGroup or Instance.")
    instanceGroup: str | None = None
    nodeId: str | None = None
    operationId: str | None = None
    object: str | None = Field(default=None, description="Kubernetes' Kind/name of the object the event is about.")
    reason: str | None = None
    namespace: str | None = None
    count: int | None = None


class ClusterEventList(PageView):
    clusterTag: str
    events: list[ClusterEventView]
