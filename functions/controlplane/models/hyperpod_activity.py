"""HyperPod's own record of a cluster (continuous provisioning): its cluster events."""

from __future__ import annotations

from datetime import datetime

from controlplane.models.common import PageView, View


class ClusterEventView(View):
    """One ListClusterEvents summary."""

    eventId: str
    time: datetime
    resourceType: str
    level: str | None = None
    description: str | None = None
    instanceGroup: str | None = None
    nodeId: str | None = None
    operationId: str | None = None


class ClusterEventList(PageView):
    clusterTag: str
    events: list[ClusterEventView]
