"""One HyperPod event handled: find the cluster it belongs to, record it once, note it in order, wake the waits.

Duplicates are harmless: the record is a conditional write keyed by the event's time and id, and a duplicate stops
there. Out-of-order events are harmless: each subject (the cluster, a node) keeps the time of its latest fact, and
an older event is recorded but neither changes that fact nor triggers remediation. Waits are woken either way: the
woken check reads live state, so waking is never wrong, only early.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controlplane.core.events.waits import WAKES, wait_key
from controlplane.core.naming import hyperpod_cluster_name
from controlplane.core.ports.events import EventStore, EventWaits, TaskSignal
from controlplane.core.ports.persistence import Clock, ClusterRegistry
from controlplane.core.registry import ClusterService
from controlplane.core.remediation.service import RemediationService
from controlplane.models.clusters import ClusterRecord
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.events import EventList, EventRecord, HyperPodEvent, NodeHistory

Handled = Literal["recorded", "out-of-order", "duplicate", "not-ours"]


@dataclass(frozen=True)
class EventOutcome:
    handled: Handled
    woken: int = 0
    remediation: EventRecord | None = None


class EventService:
    def __init__(
        self,
        clusters: ClusterService,
        registry: ClusterRegistry,
        store: EventStore,
        waits: EventWaits,
        signal: TaskSignal,
        remediation: RemediationService,
        clock: Clock,
    ) -> None:
        self._clusters = clusters
        self._registry = registry
        self._store = store
        self._waits = waits
        self._signal = signal
        self._remediation = remediation
        self._clock = clock

    def handle(self, event: HyperPodEvent) -> EventOutcome:
        record = self._cluster_of(event)
        if record is None:
            return EventOutcome("not-ours")
        if not self._store.add(_record(record.clusterTag, event)):
            return EventOutcome("duplicate")
        subject, state = _fact(event)
        latest = self._store.advance(record.clusterTag, subject, event.time, state)
        woken = self._wake(event)
        if not latest:
            return EventOutcome("out-of-order", woken)
        remediation = self._remediation.on_unhealthy(record, event) if event.unhealthy else None
        return EventOutcome("recorded", woken, remediation)

    def events(self, cluster_tag: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None) -> EventList:
        """The cluster's recorded events and remediation decisions, newest first."""
        self._clusters.get(cluster_tag)
        page = self._store.page(cluster_tag, limit, token)
        return EventList(clusterTag=cluster_tag, events=page.items, continue_=page.next_token)

    def node_history(
        self, cluster_tag: str, node_id: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None
    ) -> NodeHistory:
        """One node's health events and remediation decisions, newest first."""
        self._clusters.get(cluster_tag)
        page = self._store.page(cluster_tag, limit, token, node_id)
        return NodeHistory(clusterTag=cluster_tag, nodeId=node_id, events=page.items, continue_=page.next_token)

    def _cluster_of(self, event: HyperPodEvent) -> ClusterRecord | None:
        """The registered cluster whose HyperPod cluster the event names (by the name stage 4 gives, else adopted)."""
        prefix = hyperpod_cluster_name("")
        if event.clusterName.startswith(prefix):
            record = self._registry.find(event.clusterName.removeprefix(prefix))
            if record is not None and record.region == event.region and not record.hyperPodClusterName:
                return record
        return next(
            (
                record
                for record in self._registry.list()
                if record.region == event.region and record.hyperPodClusterName == event.clusterName
            ),
            None,
        )

    def _wake(self, event: HyperPodEvent) -> int:
        """Note the event on each key before taking its tokens: a wait parking meanwhile sees the note."""
        woken = 0
        for topic in WAKES[event.kind]:
            key = wait_key(event.region, event.clusterName, topic)
            self._waits.signal(key, self._clock.now())
            for token in self._waits.take(key):
                woken += self._signal.wake(token)
        return woken


def _fact(event: HyperPodEvent) -> tuple[str, str]:
    """The subject the event states a fact about, and the fact."""
    if event.kind == "NodeHealth" and event.instanceId:
        return f"node#{event.instanceId}", event.healthStatus or ""
    if event.kind == "ClusterStateChange":
        return "cluster", event.clusterStatus or ""
    return f"event#{event.eventId}", event.level or ""


def _record(cluster_tag: str, event: HyperPodEvent) -> EventRecord:
    return EventRecord(
        clusterTag=cluster_tag,
        **event.model_dump(include=set(EventRecord.model_fields) - {"clusterTag"}),
    )
