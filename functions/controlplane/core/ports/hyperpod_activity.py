"""HyperPod's own record of a cluster: ListClusterEvents (continuous provisioning)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from controlplane.models.hyperpod_activity import ClusterEventView


@dataclass(frozen=True)
class EventFilter:
    """The events' filters; None matches any."""

    instance_group: str | None = None
    node_id: str | None = None
    operation_id: str | None = None


class HyperPodActivityGateway(Protocol):
    def events(
        self, cluster_name: str, filters: EventFilter, before: datetime | None = None
    ) -> Iterator[ClusterEventView]:
        """ListClusterEvents newest first (at or before `before`), read a page at a time as the caller iterates;
        none when the cluster does not exist."""
