"""Workflows waiting for HyperPod events: what a wait is keyed by, and which events wake which waits.

A HyperPod wait loop (`controlplane.workflows.spec.Poll` with a topic) parks on a task token stored under
`wait_key(region, cluster, topic)` instead of sleeping; an event of the cluster wakes the waits of its topics,
and the loop's check step decides, as it does when the fallback timeout ends the wait.

The missed-event gap: an event handled after a round's check began but before its wait stored the token finds no
token to wake. So the event's handler notes the time on the key before it takes the tokens, and the wait, once its
token is stored, reads that note: an event noted from the check's start on ends the wait at once. Either the
handler takes the stored token or the wait sees the note (or both, and the token's removal decides who wakes it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from controlplane.core.ports.events import EventWaits, TaskSignal
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

    def __init__(self, waits: EventWaits, signal: TaskSignal) -> None:
        self._waits = waits
        self._signal = signal

    def park(
        self, region: str, cluster_name: str, topic: str, token: str, what: str, checked_at: datetime | None
    ) -> dict[str, Any]:
        """Store the token; end the wait at once (`woken`) when an event of the topic was handled after the round's
        check began at `checked_at` (its check may have observed the state before the event)."""
        if topic not in ("cluster", "nodes"):
            raise ValueError(f"Unknown wait topic {topic!r}; the topics are cluster and nodes")
        key = wait_key(region, cluster_name, topic)
        self._waits.add(key, token, what)
        signalled = self._waits.signalled(key)
        missed = checked_at is not None and signalled is not None and signalled >= checked_at
        woken = missed and self._waits.remove(key, token) and self._signal.wake(token)
        return {"waitKey": key, "woken": woken}
