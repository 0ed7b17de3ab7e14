"""Workflows waiting for HyperPod events: what a wait is keyed by, and which events wake which waits.

A HyperPod wait loop (`controlplane.workflows.spec.Poll` with a topic) parks on a task token stored under
`wait_key(region, cluster, topic)` instead of sleeping; an event of the cluster wakes the waits of its topics,
and the loop's check step decides, as it does when the fallback timeout ends the wait.
"""

from __future__ import annotations

from typing import Literal

from controlplane.core.ports.events import EventWaits
from controlplane.models.events import EventKind

Topic = Literal["cluster", "nodes"]
"""cluster: the cluster in service, a group scaled, software updated. nodes: a node rebooted, replaced or deleted."""

WAKES: dict[EventKind, tuple[Topic, ...]] = {
    "ClusterStateChange": ("cluster", "nodes"),
    "ClusterEvent": ("cluster", "nodes"),
    "NodeHealth": ("nodes",),
    "Remediation": (),
}


def wait_key(region: str, cluster_name: str, topic: str) -> str:
    return f"{region}#{cluster_name}#{topic}"


class EventWaitSteps:
    """The step a HyperPod wait loop parks in: its task token stored until an event or its timeout ends it."""

    def __init__(self, waits: EventWaits) -> None:
        self._waits = waits

    def park(self, region: str, cluster_name: str, topic: str, token: str, what: str) -> dict[str, str]:
        if topic not in ("cluster", "nodes"):
            raise ValueError(f"Unknown wait topic {topic!r}; the topics are cluster and nodes")
        key = wait_key(region, cluster_name, topic)
        self._waits.add(key, token, what)
        return {"waitKey": key}
