"""A cluster's events, one list newest first: HyperPod's own (ListClusterEvents, continuous provisioning only; a
cluster without it lists none) merged with Kubernetes' Warning events, filtered by instance group, node and HyperPod
operation (a Kubernetes event has no operation, so that filter keeps HyperPod's alone).

Pages across both sources by position: the token holds the last event shown (time, source, id), and each page reads
both sources again from there, HyperPod's from that time on its side, Kubernetes' streamed keeping the newest few."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from itertools import islice

from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.paging import decode_token, encode_token, invalid_token
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod_activity import EventFilter, HyperPodActivityGateway
from controlplane.core.ports.kubernetes import ClusterEvent, ClusterReadGateway
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord, StageName
from controlplane.models.common import instance_id
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.hyperpod_activity import ClusterEventList, ClusterEventView
from controlplane.models.status import GROUP_LABEL

Position = tuple[float, str, str]  # newest first: minus the time, then source and id to break ties


def position(event: ClusterEventView) -> Position:
    return (-event.time.timestamp(), event.source, event.eventId)


class HyperPodActivityService:
    def __init__(
        self,
        clusters: ClusterService,
        activity: Callable[[str], HyperPodActivityGateway],
        eks: Callable[[str], EksGateway],
        reads: ClusterReadGateway,
    ) -> None:
        self._clusters = clusters
        self._activity = activity
        self._eks = eks
        self._reads = reads

    def events(self, cluster_tag: str, filters: EventFilter, limit: int, token: str | None) -> ClusterEventList:
        record = self._ready(cluster_tag)
        after = _cursor(token)
        before = datetime.fromtimestamp(-after[0], UTC) if after else None
        hyperpod = self._activity(record.region).events(_name(record), filters, before)
        newest = [
            *islice((event for event in hyperpod if after is None or position(event) > after), limit + 1),
            *heapq.nsmallest(limit + 1, self._kubernetes(record, filters, after), key=position),
        ]
        newest.sort(key=position)
        shown = newest[:limit]
        more = len(newest) > limit
        return ClusterEventList(
            clusterTag=cluster_tag, events=shown, continue_=encode_token(list(position(shown[-1]))) if more else None
        )

    def _kubernetes(
        self, record: ClusterRecord, filters: EventFilter, after: Position | None
    ) -> Iterator[ClusterEventView]:
        """Kubernetes' Warning events past the cursor that match the filters (none under an operation filter)."""
        if filters.operation_id:
            return
        cluster = reachable_control_plane(self._eks(record.region), record.eksClusterName, record.clusterTag)
        groups = self._groups(cluster, record.region) if filters.instance_group else {}
        for page in self._reads.warning_event_pages(cluster, record.region):
            for raw in page:
                event = _kubernetes_view(raw, groups)
                if event is None or (after is not None and position(event) <= after):
                    continue
                if filters.node_id and event.nodeId != filters.node_id:
                    continue
                if filters.instance_group and event.instanceGroup != filters.instance_group:
                    continue
                yield event

    def _groups(self, cluster: EksCluster, region: str) -> dict[str, str]:
        """Each node's instance group, by its instance id."""
        return {
            instance_id(node.name): node.labels[GROUP_LABEL]
            for page in self._reads.node_pages(cluster, region)
            for node in page
            if GROUP_LABEL in node.labels
        }

    def _ready(self, cluster_tag: str) -> ClusterRecord:
        record = self._clusters.get(cluster_tag)
        if StageName.HYPERPOD.value not in record.stagesDone:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' has no HyperPod cluster yet; finish stage 4 first.",
                {"stagesDone": record.stagesDone},
            )
        return record


def _kubernetes_view(event: ClusterEvent, groups: dict[str, str]) -> ClusterEventView | None:
    """The event as a row; None for one without a readable time (it cannot be placed)."""
    try:
        time = datetime.fromisoformat(event.at or "")
    except ValueError:
        return None
    node = instance_id(event.node) if event.node else None
    return ClusterEventView(
        source="kubernetes",
        eventId=event.uid or f"{event.namespace}/{event.object}/{event.reason}/{event.at}",
        time=time,
        level="Warning",
        description=event.message,
        nodeId=node,
        instanceGroup=groups.get(node) if node else None,
        object=event.object,
        reason=event.reason,
        namespace=event.namespace,
        count=event.count,
    )


def _cursor(token: str | None) -> Position | None:
    if token is None:
        return None
    position = decode_token(token)
    if not (
        isinstance(position, list)
        and len(position) == 3
        and isinstance(position[0], (int, float))
        and all(isinstance(part, str) for part in position[1:])
    ):
        raise invalid_token()
    return (float(position[0]), position[1], position[2])


def _name(record: ClusterRecord) -> str:
    return hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)
