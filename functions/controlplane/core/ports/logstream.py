"""What live logs need from the outside: the connections and pushers (`ConnectionRepository`), a way to post to a
connection (`ConnectionNotifier`), to start a pusher (`PusherLauncher`) and to read a followed log (`LogSource`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from controlplane.core.auth import Role
from controlplane.models.logstream import LogTopic
from controlplane.models.training import JobLogs


@dataclass(frozen=True)
class Connection:
    """An open WebSocket connection: who opened it, with which role, and the topic it follows (if any)."""

    connection_id: str
    principal: str
    role: Role
    topic: str | None = None


@dataclass(frozen=True)
class PusherLease:
    """The one pusher of a topic: `owner` holds it until `until` (epoch seconds) unless it renews; `pod`, `sent`
    and `last_line` are its cursor (the pod followed, how many of its log lines were sent, and the last of them,
    which tells a log that restarted from one that grew)."""

    topic: str
    owner: str
    until: float
    pod: str = ""
    sent: int = 0
    last_line: str = ""


class ConnectionRepository(Protocol):
    def add(self, connection: Connection, expires_at: float) -> None:
        """Record a connection that opened (kept until `expires_at`, epoch seconds, at most)."""

    def get(self, connection_id: str) -> Connection | None: ...

    def follow(self, connection_id: str, topic: str | None) -> None:
        """Make the connection follow `topic` (None: nothing)."""

    def remove(self, connection_id: str) -> None:
        """Forget the connection (closed or gone); nothing when it is unknown."""

    def followers(self, topic: str) -> list[str]:
        """The ids of the connections that follow `topic`."""

    def acquire(self, lease: PusherLease, now: float) -> bool:
        """Take the topic's pusher lease unless another owner holds one that has not expired at `now`."""

    def renew(self, lease: PusherLease) -> bool:
        """Extend the lease and save its cursor; False when another owner has taken it."""

    def release(self, lease: PusherLease) -> None:
        """Give the lease up (nothing when another owner holds it)."""

    def lease(self, topic: str) -> PusherLease | None: ...


class ConnectionNotifier(Protocol):
    def post(self, connection_id: str, data: bytes) -> bool:
        """Send a frame; False when the connection is gone."""


class PusherLauncher(Protocol):
    def start(self, topic: str, owner: str) -> None:
        """Run a pusher for `topic` as `owner` of its lease, without waiting for it."""


class LogSource(Protocol):
    def read(self, topic: LogTopic) -> JobLogs:
        """The followed log's lines now (the job's first pod unless the topic names one)."""
