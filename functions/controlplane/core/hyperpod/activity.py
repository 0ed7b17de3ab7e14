"""HyperPod's own record of a cluster: its cluster events (ListClusterEvents), filtered by instance group, node and
HyperPod operation. They exist only under continuous provisioning; a cluster without them lists none."""

from __future__ import annotations

from collections.abc import Callable

from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.ports.hyperpod_activity import EventFilter, HyperPodActivityGateway
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord, StageName
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.hyperpod_activity import ClusterEventList


class HyperPodActivityService:
    def __init__(self, clusters: ClusterService, activity: Callable[[str], HyperPodActivityGateway]) -> None:
        self._clusters = clusters
        self._activity = activity

    def events(self, cluster_tag: str, filters: EventFilter, limit: int, token: str | None) -> ClusterEventList:
        record = self._ready(cluster_tag)
        page = self._activity(record.region).event_page(_name(record), filters, limit, token)
        return ClusterEventList(clusterTag=cluster_tag, events=page.items, continue_=page.next_token)

    def _ready(self, cluster_tag: str) -> ClusterRecord:
        record = self._clusters.get(cluster_tag)
        if StageName.HYPERPOD.value not in record.stagesDone:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' has no HyperPod cluster yet; finish stage 4 first.",
                {"stagesDone": record.stagesDone},
            )
        return record


def _name(record: ClusterRecord) -> str:
    return hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)
