"""What the day-two event handling stores and signals: recorded events, the latest fact per subject, remediation
policies, the workflows waiting for an event (Step Functions task tokens), and the rules that bring another Region's
HyperPod events to this deployment's Region."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from controlplane.core.paging import Page
from controlplane.core.ports.persistence import KeptBesideCluster
from controlplane.models.events import EventRecord, RemediationPolicyView


class EventStore(KeptBesideCluster, Protocol):
    """Forgetting a cluster forgets its remediation policy; its records stay, as history."""

    def add(self, record: EventRecord) -> bool:
        """Record it once: False when a record with its cluster, time and id exists (a duplicate delivery)."""
        ...

    def advance(self, cluster_tag: str, subject: str, time: datetime, state: str) -> bool:
        """Note `state` as the subject's (the cluster, a node) latest fact unless a later one is noted: True when
        this one is now the latest, False when it arrived out of order."""
        ...

    def page(self, cluster_tag: str, limit: int, token: str | None, node_id: str | None = None) -> Page[EventRecord]:
        """The cluster's (or one node's) records, newest first."""
        ...

    def since(self, cluster_tag: str, since: datetime) -> list[EventRecord]:
        """Every record of the cluster from `since` on (the remediation limits count them)."""
        ...

    def policy(self, cluster_tag: str) -> RemediationPolicyView | None: ...

    def save_policy(self, policy: RemediationPolicyView) -> None: ...


class EventWaits(Protocol):
    """Workflows waiting for an event on `key` (a cluster and a topic), each by its task token, and when an event on
    `key` was last handled (a wait parked just after it sees that it missed it)."""

    def add(self, key: str, token: str, what: str) -> None: ...

    def take(self, key: str) -> list[str]:
        """Every token waiting on `key`, forgotten as they are returned (an event wakes a wait once)."""
        ...

    def remove(self, key: str, token: str) -> bool:
        """Forget one token: True when it was still waiting (the caller now ends its wait), False when taken."""
        ...

    def signal(self, key: str, at: datetime) -> None:
        """Note that an event on `key` was handled at `at` (unless a later one is noted)."""
        ...

    def signalled(self, key: str) -> datetime | None:
        """When an event on `key` was last handled, read after every earlier `signal` (strongly consistent)."""
        ...


class TaskSignal(Protocol):
    def wake(self, token: str) -> bool:
        """End the token's wait (the workflow checks again); False when it had already ended (timed out)."""
        ...


@dataclass(frozen=True)
class ForwardingRule:
    """An EventBridge rule on a Region's default bus and the ARNs of its targets."""

    name: str
    targets: tuple[str, ...]
    tags: dict[str, str] = field(default_factory=dict)


class EventForwarding(Protocol):
    """One Region's default bus: the rule that sends HyperPod's events (the home rules' patterns) to another bus."""

    def find(self, name: str) -> ForwardingRule | None: ...

    def put(self, name: str, bus_arn: str, role_arn: str, tags: dict[str, str]) -> None:
        """Create or update the rule and its one target, `bus_arn`, which EventBridge reaches as `role_arn`."""
        ...

    def delete(self, name: str) -> None:
        """Remove the rule's targets, then the rule; a rule already gone is done."""
        ...
