"""In-memory fakes of the day-two event ports (`core.ports.events`): the store, the waits, the task signal and a
Region's forwarding rules."""

from __future__ import annotations

from datetime import datetime

from controlplane.core.paging import Page, page_of
from controlplane.core.ports.events import ForwardingRule
from controlplane.models.events import EventRecord, RemediationPolicyView


class InMemoryEventStore:
    """Like the DynamoDB store: a record is keyed by cluster, time and id (a second add of it is refused), and a
    subject's latest time only moves forward."""

    def __init__(self) -> None:
        self.records: dict[tuple[str, str], EventRecord] = {}
        self.latest: dict[tuple[str, str], tuple[datetime, str]] = {}
        self.policies: dict[str, RemediationPolicyView] = {}

    def add(self, record: EventRecord) -> bool:
        key = (record.clusterTag, f"{record.time.isoformat()}#{record.eventId}")
        if key in self.records:
            return False
        self.records[key] = record
        return True

    def advance(self, cluster_tag: str, subject: str, time: datetime, state: str) -> bool:
        noted = self.latest.get((cluster_tag, subject))
        if noted is not None and noted[0] >= time:
            return False
        self.latest[(cluster_tag, subject)] = (time, state)
        return True

    def page(self, cluster_tag: str, limit: int, token: str | None, node_id: str | None = None) -> Page[EventRecord]:
        mine = [
            record
            for (tag, key), record in sorted(self.records.items(), key=lambda item: item[0][1], reverse=True)
            if tag == cluster_tag and (node_id is None or record.instanceId == node_id)
        ]
        return page_of(mine, limit, token)

    def since(self, cluster_tag: str, since: datetime) -> list[EventRecord]:
        return [record for (tag, _), record in self.records.items() if tag == cluster_tag and record.time >= since]

    def policy(self, cluster_tag: str) -> RemediationPolicyView | None:
        return self.policies.get(cluster_tag)

    def save_policy(self, policy: RemediationPolicyView) -> None:
        self.policies[policy.clusterTag] = policy

    def forget_cluster(self, cluster_tag: str) -> None:
        self.policies.pop(cluster_tag, None)


class InMemoryEventWaits:
    def __init__(self) -> None:
        self.tokens: dict[str, list[str]] = {}
        self.signals: dict[str, datetime] = {}

    def add(self, key: str, token: str, what: str) -> None:
        self.tokens.setdefault(key, []).append(token)

    def take(self, key: str) -> list[str]:
        return self.tokens.pop(key, [])

    def remove(self, key: str, token: str) -> bool:
        waiting = self.tokens.get(key, [])
        if token not in waiting:
            return False
        waiting.remove(token)
        return True

    def signal(self, key: str, at: datetime) -> None:
        self.signals[key] = max(at, self.signals.get(key, at))

    def signalled(self, key: str) -> datetime | None:
        return self.signals.get(key)


class RecordingTaskSignal:
    def __init__(self) -> None:
        self.woken: list[str] = []

    def wake(self, token: str) -> bool:
        self.woken.append(token)
        return True


class InMemoryEventForwarding:
    """Like a Region's default bus: rules by name, each with its targets (and the role of each) and tags."""

    def __init__(self) -> None:
        self.rules: dict[str, ForwardingRule] = {}
        self.roles: dict[str, str] = {}

    def find(self, name: str) -> ForwardingRule | None:
        return self.rules.get(name)

    def put(self, name: str, bus_arn: str, role_arn: str, tags: dict[str, str]) -> None:
        existing = self.rules.get(name)
        self.rules[name] = ForwardingRule(name, (bus_arn,), existing.tags if existing else dict(tags))
        self.roles[name] = role_arn

    def delete(self, name: str) -> None:
        self.rules.pop(name, None)
        self.roles.pop(name, None)
