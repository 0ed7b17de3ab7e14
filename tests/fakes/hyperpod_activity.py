"""HyperPod's cluster events of each cluster held in memory, filtered and read newest first as ListClusterEvents
reads them; `read` counts the events handed out."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from controlplane.core.ports.hyperpod_activity import EventFilter
from controlplane.models.hyperpod_activity import ClusterEventView


class InMemoryHyperPodActivity:
    def __init__(self) -> None:
        self.clusters: dict[str, list[ClusterEventView]] = {}
        self.read = 0

    def events(
        self, cluster_name: str, filters: EventFilter, before: datetime | None = None
    ) -> Iterator[ClusterEventView]:
        for event in sorted(self.clusters.get(cluster_name, []), key=lambda event: event.time, reverse=True):
            if (
                (filters.instance_group is None or event.instanceGroup == filters.instance_group)
                and (filters.node_id is None or event.nodeId == filters.node_id)
                and (filters.operation_id is None or event.operationId == filters.operation_id)
                and (before is None or event.time <= before)
            ):
                self.read += 1
                yield event
