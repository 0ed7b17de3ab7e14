"""Live logs' ports in memory: connections and leases, a notifier that records frames (and knows gone
connections), a launcher that records the pushers it starts, and a log source fed by the test."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from controlplane.core.ports.logstream import Connection, PusherLease
from controlplane.models.errors import NotFoundError
from controlplane.models.logstream import LogTopic
from controlplane.models.training import JobLogs


class InMemoryConnectionRepository:
    def __init__(self) -> None:
        self.connections: dict[str, Connection] = {}
        self.expiry: dict[str, float] = {}
        self.leases: dict[str, PusherLease] = {}

    def add(self, connection: Connection, expires_at: float) -> None:
        self.connections[connection.connection_id] = connection
        self.expiry[connection.connection_id] = expires_at

    def get(self, connection_id: str) -> Connection | None:
        return self.connections.get(connection_id)

    def follow(self, connection_id: str, topic: str | None) -> None:
        if connection_id in self.connections:
            self.connections[connection_id] = replace(self.connections[connection_id], topic=topic)

    def remove(self, connection_id: str) -> None:
        self.connections.pop(connection_id, None)

    def followers(self, topic: str) -> list[str]:
        return [c.connection_id for c in self.connections.values() if c.topic == topic]

    def acquire(self, lease: PusherLease, now: float) -> bool:
        held = self.leases.get(lease.topic)
        if held is not None and held.until >= now:
            return False
        self.leases[lease.topic] = lease
        return True

    def renew(self, lease: PusherLease) -> bool:
        held = self.leases.get(lease.topic)
        if held is None or held.owner != lease.owner:
            return False
        self.leases[lease.topic] = lease
        return True

    def release(self, lease: PusherLease) -> None:
        if (held := self.leases.get(lease.topic)) is not None and held.owner == lease.owner:
            del self.leases[lease.topic]

    def lease(self, topic: str) -> PusherLease | None:
        return self.leases.get(topic)


@dataclass
class RecordingNotifier:
    """Frames posted, per connection; posting to a connection in `gone` fails as API Gateway's 410 does."""

    frames: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    gone: set[str] = field(default_factory=set)

    def post(self, connection_id: str, data: bytes) -> bool:
        if connection_id in self.gone:
            return False
        self.frames.setdefault(connection_id, []).append(json.loads(data))
        return True

    def lines(self, connection_id: str) -> list[str]:
        return [line for frame in self.frames.get(connection_id, []) for line in frame.get("lines", [])]


@dataclass
class RecordingPusherLauncher:
    started: list[tuple[str, str]] = field(default_factory=list)

    def start(self, topic: str, owner: str) -> None:
        self.started.append((topic, owner))


@dataclass
class ScriptedLogSource:
    """The log of each pod of a job (the first pod is the job's); a job not in `jobs` is not found."""

    jobs: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    reads: int = 0

    def read(self, topic: LogTopic) -> JobLogs:
        self.reads += 1
        pods = self.jobs.get(topic.jobName)
        if pods is None:
            raise NotFoundError(f"Job '{topic.jobName}' was not found.")
        chosen = topic.pod or next(iter(pods), "")
        if topic.pod and topic.pod not in pods:
            raise NotFoundError(f"Pod '{topic.pod}' is not one of the job's pods.")
        return JobLogs(jobName=topic.jobName, pod=chosen, pods=list(pods), lines=list(pods.get(chosen, [])))
