"""The overview's arithmetic: counters fed page by page (nodes, pods, Warning events) that keep only counts and
capped lists, so memory stays bounded by the number of nodes, never by the number of pods or events.

Each tally is fed by one stream; the three run on different threads and meet in `overview`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from datetime import UTC
from typing import Any, Generic, TypeVar

from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.core.ports.kubernetes import ClusterEvent, KubernetesNode, PodCounts, PodFacts
from controlplane.models.hyperpod_activity import ClusterEventView
from controlplane.models.monitoring import (
    HEALTHY,
    NO_HEALTH_LABEL,
    OVERVIEW_EVENTS,
    OVERVIEW_NODES,
    OVERVIEW_PENDING_PODS,
    ClusterOverview,
    GpuCounts,
    GroupOverview,
    NodeGpus,
    NodeState,
    ObservabilityLinks,
    PendingPod,
    WarningEvent,
)
from controlplane.models.status import GPU_RESOURCE, GROUP_LABEL, HEALTH_LABEL, INSTANCE_TYPE_LABEL

# Pods in these phases hold no GPU any more.
FINISHED_PHASES = frozenset({"Succeeded", "Failed"})
# A pending pod that says nothing about why.
NO_REASON = "Pending"

HYPERPOD_WARNING_LEVELS = frozenset({"Warn", "Error"})  # ListClusterEvents' EventLevel

T = TypeVar("T")


def gpus_of(resources: dict[str, str]) -> int:
    """The GPU count of a capacity or allocatable map."""
    try:
        return int(resources.get(GPU_RESOURCE, "0"))
    except ValueError:
        return 0


def node_state(node: KubernetesNode) -> NodeState:
    if not node.ready:
        return "NotReady"
    return "Ready" if node.schedulable else "Cordoned"


class NodeTally:
    """The nodes, kept whole: they are few (one per instance), and the pods' GPUs are joined to them at the end."""

    def __init__(self) -> None:
        self.nodes: list[KubernetesNode] = []

    def add(self, page: Iterable[KubernetesNode]) -> None:
        self.nodes.extend(page)


class Capped(Generic[T]):
    """The first `cap` items by `key` of any number added: a buffer sorted and cut back whenever it doubles, so it
    never holds more than 2 x cap items."""

    def __init__(self, cap: int, key: Callable[[T], Any]) -> None:
        self._cap = cap
        self._key = key
        self._items: list[T] = []

    def add(self, item: T) -> None:
        self._items.append(item)
        if len(self._items) >= 2 * self._cap:
            self._cut()

    def items(self) -> list[T]:
        self._cut()
        return list(self._items)

    def _cut(self) -> None:
        self._items.sort(key=self._key)
        del self._items[self._cap :]


class PodTally:
    """Counts by phase, GPUs requested per node by pods that have not finished, and the oldest pending pods, summed
    over pages already counted by the reader."""

    def __init__(self, cap: int = OVERVIEW_PENDING_PODS) -> None:
        self.total = 0
        self.by_phase: Counter[str] = Counter()
        self.pending_by_reason: Counter[str] = Counter()
        self.gpus_used: Counter[str] = Counter()
        # Oldest first; a pod without a creation time sorts last; ties by namespace and name.
        self._pending: Capped[PodFacts] = Capped(
            cap, lambda pod: (pod.created_at is None, pod.created_at or "", pod.namespace, pod.name)
        )

    def add(self, page: PodCounts) -> None:
        self.total += sum(page.by_phase.values())
        self.by_phase.update(page.by_phase)
        for (node, phase), gpus in page.gpus.items():
            if phase not in FINISHED_PHASES:
                self.gpus_used[node] += gpus
        for pod in page.pending:
            self.pending_by_reason[pod.waiting_reason or NO_REASON] += 1
            self._pending.add(pod)

    def pending(self) -> list[PendingPod]:
        return [
            PendingPod(
                namespace=pod.namespace,
                name=pod.name,
                reason=pod.waiting_reason or NO_REASON,
                message=pod.waiting_message,
                createdAt=pod.created_at,
            )
            for pod in self._pending.items()
        ]


class EventTally:
    """The count of Kubernetes Warning events, and the newest `cap` warnings of Kubernetes and HyperPod."""

    def __init__(self, cap: int = OVERVIEW_EVENTS) -> None:
        self.total = 0
        self._kept = 0
        # Newest first (ISO timestamps order as text); an event without a time sorts last.
        self._newest: Capped[tuple[int, WarningEvent]] = Capped(
            cap, lambda entry: (entry[1].at is None, _descending(entry[1].at or ""), -entry[0])
        )

    def add(self, page: Iterable[ClusterEvent]) -> None:
        for event in page:
            self.total += 1
            self._keep(
                WarningEvent(
                    namespace=event.namespace,
                    object=event.object,
                    reason=event.reason,
                    message=event.message,
                    at=event.at,
                    count=event.count,
                )
            )

    def add_hyperpod(self, events: Iterable[ClusterEventView]) -> None:
        """HyperPod's cluster events of level Warn or Error, beside Kubernetes'."""
        for event in events:
            if event.level in HYPERPOD_WARNING_LEVELS:
                self._keep(
                    WarningEvent(
                        source="hyperpod",
                        object=f"{event.resourceType}/{event.nodeId or event.instanceGroup or 'cluster'}",
                        reason=event.level,
                        message=event.description,
                        at=event.time.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                        instanceGroup=event.instanceGroup,
                        nodeId=event.nodeId,
                        operationId=event.operationId,
                    )
                )

    def newest(self) -> list[WarningEvent]:
        return [event for _, event in self._newest.items()]

    def _keep(self, event: WarningEvent) -> None:
        self._kept += 1
        self._newest.add((self._kept, event))


def overview(
    cluster_tag: str,
    hyperpod: HyperPodCluster | None,
    nodes: NodeTally,
    pods: PodTally,
    events: EventTally,
    observability: ObservabilityLinks | None,
    node_cap: int = OVERVIEW_NODES,
) -> ClusterOverview:
    """The overview once every stream has been read."""
    per_node = [_node_gpus(node, pods.gpus_used[node.name]) for node in nodes.nodes]
    # Not Ready first, then cordoned, then the fullest; by name within.
    rank = {"NotReady": 0, "Cordoned": 1, "Ready": 2}
    per_node.sort(key=lambda node: (rank[node.state], -node.gpus.used, node.name))
    return ClusterOverview(
        clusterTag=cluster_tag,
        hyperPodStatus=hyperpod.status if hyperpod else None,
        nodesTotal=len(per_node),
        nodesByState=dict(Counter(node.state for node in per_node)),
        nodesByHealth=dict(Counter(node.health for node in per_node)),
        nodesUnhealthy=sum(1 for node in per_node if unhealthy(node)),
        gpus=_sum(node.gpus for node in per_node),
        groups=_groups(hyperpod, nodes.nodes, per_node),
        nodes=per_node[:node_cap],
        podsTotal=pods.total,
        podsByPhase=dict(pods.by_phase),
        pendingByReason=dict(pods.pending_by_reason),
        pendingPods=pods.pending(),
        warningEventsTotal=events.total,
        events=events.newest(),
        observability=observability,
    )


def unhealthy(node: NodeGpus) -> bool:
    return node.state == "NotReady" or node.health not in (HEALTHY, NO_HEALTH_LABEL)


def _node_gpus(node: KubernetesNode, used: int) -> NodeGpus:
    state = node_state(node)
    allocatable = gpus_of(node.allocatable)
    return NodeGpus(
        name=node.name,
        instanceGroup=node.labels.get(GROUP_LABEL),
        state=state,
        health=node.labels.get(HEALTH_LABEL) or NO_HEALTH_LABEL,
        gpus=GpuCounts(
            total=gpus_of(node.capacity),
            allocatable=allocatable,
            used=used,
            available=max(allocatable - used, 0) if state == "Ready" else 0,
        ),
    )


def _sum(counts: Iterable[NodeGpus] | Iterable[GpuCounts]) -> GpuCounts:
    total = allocatable = used = available = 0
    for item in counts:
        gpus = item.gpus if isinstance(item, NodeGpus) else item
        total += gpus.total
        allocatable += gpus.allocatable
        used += gpus.used
        available += gpus.available
    return GpuCounts(total=total, allocatable=allocatable, used=used, available=available)


def _groups(
    hyperpod: HyperPodCluster | None, nodes: list[KubernetesNode], per_node: list[NodeGpus]
) -> list[GroupOverview]:
    """One row per HyperPod group and per group label found on nodes (HyperPod's first, in its order)."""
    types = {node.name: node.labels.get(INSTANCE_TYPE_LABEL) for node in nodes}
    by_group: dict[str, list[NodeGpus]] = {}
    for node in per_node:
        if node.instanceGroup:
            by_group.setdefault(node.instanceGroup, []).append(node)
    known = [group.name for group in hyperpod.groups] if hyperpod else []
    rows = []
    for name in [*known, *sorted(set(by_group) - set(known))]:
        members = by_group.get(name, [])
        group = hyperpod.group(name) if hyperpod else None
        rows.append(
            GroupOverview(
                name=name,
                instanceType=group.instance_type if group else next((types[n.name] for n in members), None),
                status=group.status if group else None,
                currentCount=group.current_count if group else None,
                targetCount=group.target_count if group else None,
                nodes=len(members),
                nodesReady=sum(1 for node in members if node.state == "Ready"),
                gpus=_sum(members),
            )
        )
    return rows


def _descending(timestamp: str) -> tuple[int, ...]:
    """A sort key that orders ISO timestamps newest first."""
    return tuple(-ord(character) for character in timestamp)
