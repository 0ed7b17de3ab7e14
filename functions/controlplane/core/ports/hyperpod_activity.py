"""HyperPod's own record of a cluster: ListClusterEvents (continuous provisioning)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from controlplane.core.paging import Page
from controlplane.models.hyperpod_activity import ClusterEventView


@dataclass(frozen=True)
class EventFilter:
    """ListClusterEvents' filters; None matches any."""

    instance_group: str | None = None
    node_id: str | None = None
    operation_id: str | None = None


class HyperPodActivityGateway(Protocol):
    def event_page(
        self, cluster_name: str, filters: EventFilter, limit: int, token: str | None = None
    ) -> Page[ClusterEventView]:
        """One page of ListClusterEvents, newest first; empty when the cluster does not exist."""
