"""Connections open and close, follow a topic (a job's log, or one pod's), and a pusher per followed topic posts the
log's new lines to them.

There is no always-on server: a subscription starts the topic's pusher unless one holds the topic's lease (a
conditional write, so at most one runs per topic). A pusher runs for `run_seconds`, reading the log every
`tick_seconds` and keeping its cursor (the pod, how many of its lines were sent, the last of them) in the lease,
then starts its successor (same lease) and ends. It stops for good, giving the lease up, when the topic has no
follower left or its job is gone. A connection that is gone when posted to is forgotten; the other followers are
not disturbed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from enum import StrEnum

from controlplane.core.auth import Actor, Role
from controlplane.core.ports.logstream import (
    Connection,
    ConnectionNotifier,
    ConnectionRepository,
    LogSource,
    PusherLauncher,
    PusherLease,
)
from controlplane.core.ports.persistence import Clock
from controlplane.models.errors import AuthenticationRequiredError, NotFoundError
from controlplane.models.logstream import LogFrame, LogTopic, StatusFrame
from controlplane.models.training import JobLogs

# API Gateway closes a WebSocket connection after 2 hours: its row is kept no longer (TTL).
CONNECTION_SECONDS = 2 * 60 * 60
# A lease outlives a pusher's tick and the start of its successor; a pusher that died frees its topic after it.
LEASE_SECONDS = 30.0
# Frames stay under API Gateway's 32 KB WebSocket frame (a message may be 128 KB, in frames of 32 KB).
MAX_FRAME_BYTES = 30_000
MAX_LINE_CHARS = 8_000
SUBSCRIBE_ACTION = "subscribe to job logs"


class PushOutcome(StrEnum):
    IDLE = "idle"  # no follower left: the lease is given up
    ENDED = "ended"  # the job (or the followed pod) is gone: followers told, the lease given up
    HANDED_OVER = "handed-over"  # the run's time is up: a successor holds the lease now
    LOST = "lost"  # another pusher holds the lease: this one stops


class LiveLogService:
    def __init__(
        self,
        connections: ConnectionRepository,
        notifier: ConnectionNotifier,
        launcher: PusherLauncher,
        source: LogSource,
        clock: Clock,
        tick_seconds: float = 1.0,
        run_seconds: float = 60.0,
    ) -> None:
        self._connections = connections
        self._notifier = notifier
        self._launcher = launcher
        self._source = source
        self._clock = clock
        self._tick_seconds = tick_seconds
        self._run_seconds = run_seconds

    # --- connections -------------------------------------------------------------------------

    def connect(self, connection_id: str, actor: Actor) -> None:
        """Record a connection of a caller with a role (every role may follow logs)."""
        actor.require(Role.VIEWER, SUBSCRIBE_ACTION)
        connection = Connection(connection_id, actor.principal, actor.role)
        self._connections.add(connection, self._now() + CONNECTION_SECONDS)

    def disconnect(self, connection_id: str) -> None:
        self._connections.remove(connection_id)

    def subscribe(self, connection_id: str, topic: LogTopic) -> None:
        """Follow `topic`: the log's lines so far come at once, new ones as the pusher reads them.

        Raises the log's errors (job or pod not found, cluster not ready) for the caller to send as an error frame.
        """
        connection = self._connections.get(connection_id)
        if connection is None:
            raise AuthenticationRequiredError("This connection is not open; connect again with a token.")
        Actor(connection.principal, connection.role).require(Role.VIEWER, SUBSCRIBE_ACTION)
        logs = self._source.read(topic)
        self._connections.follow(connection_id, topic.key)
        frames: list[LogFrame | StatusFrame] = [StatusFrame(type="subscribed", topic=topic.key)]
        frames += _frames(topic.key, logs, 0, logs.lines)
        if all(self._post(connection_id, frame) for frame in frames):
            self._start_pusher(topic.key, logs)

    def unsubscribe(self, connection_id: str) -> None:
        self._connections.follow(connection_id, None)

    def refuse(self, connection_id: str, code: str, message: str) -> None:
        """Tell the connection why its request was refused (an error frame)."""
        self._post(connection_id, StatusFrame(type="error", code=code, message=message))

    # --- the pusher --------------------------------------------------------------------------

    def push(self, topic_key: str, owner: str) -> PushOutcome:
        """Post the topic's new lines to its followers every tick, for one run; then hand over or stop."""
        lease = self._connections.lease(topic_key)
        if lease is None or lease.owner != owner:
            return PushOutcome.LOST
        topic = LogTopic.parse(topic_key)
        ends_at = self._now() + self._run_seconds
        while True:
            followers = self._connections.followers(topic_key)
            if not followers:
                self._connections.release(lease)
                return PushOutcome.IDLE
            try:
                logs = self._source.read(topic)
            except NotFoundError as error:
                self._post_all(followers, [StatusFrame(type="ended", topic=topic_key, message=error.message)])
                self._connections.release(lease)
                return PushOutcome.ENDED
            lease = self._advance(lease, followers, logs)
            if not self._connections.renew(lease):
                return PushOutcome.LOST
            if self._now() + self._tick_seconds >= ends_at:
                self._launcher.start(topic_key, owner)
                return PushOutcome.HANDED_OVER
            self._clock.sleep(self._tick_seconds)

    def _advance(self, lease: PusherLease, followers: list[str], logs: JobLogs) -> PusherLease:
        """Post the lines past the cursor (all of them when the pod changed or its log restarted); move the cursor."""
        sent, lines = lease.sent, logs.lines
        fresh = logs.pod != lease.pod or len(lines) < sent or (sent > 0 and lines[sent - 1] != lease.last_line)
        start = 0 if fresh else lease.sent
        if logs.pod and (fresh or len(logs.lines) > start):
            self._post_all(followers, list(_frames(lease.topic, logs, start, logs.lines[start:])))
        last_line = lines[-1] if lines else ""
        return replace(lease, until=self._now() + LEASE_SECONDS, pod=logs.pod, sent=len(lines), last_line=last_line)

    def _start_pusher(self, topic_key: str, logs: JobLogs) -> None:
        """Start the topic's pusher unless one runs; its cursor starts past the lines the subscriber just got."""
        owner = uuid.uuid4().hex
        last_line = logs.lines[-1] if logs.lines else ""
        lease = PusherLease(topic_key, owner, self._now() + LEASE_SECONDS, logs.pod, len(logs.lines), last_line)
        if self._connections.acquire(lease, self._now()):
            self._launcher.start(topic_key, lease.owner)

    # --- posting -----------------------------------------------------------------------------

    def _post_all(self, connection_ids: list[str], frames: list[LogFrame | StatusFrame]) -> None:
        for connection_id in connection_ids:
            for frame in frames:
                if not self._post(connection_id, frame):
                    break

    def _post(self, connection_id: str, frame: LogFrame | StatusFrame) -> bool:
        """Send one frame; a connection that is gone is forgotten (False)."""
        if self._notifier.post(connection_id, frame.model_dump_json(exclude_none=True).encode()):
            return True
        self._connections.remove(connection_id)
        return False

    def _now(self) -> float:
        return self._clock.now().timestamp()


def _frames(topic: str, logs: JobLogs, start: int, lines: list[str]) -> Iterator[LogFrame]:
    """`lines` (the pod's log from line `start` on) in frames under MAX_FRAME_BYTES; always one frame for start 0,
    so that a client replaces what it shows even when the new pod's log is empty."""
    batch: list[str] = []
    size = 0
    first = start
    for line in (line[:MAX_LINE_CHARS] for line in lines):
        length = len(line.encode()) + 4
        if batch and size + length > MAX_FRAME_BYTES:
            yield LogFrame(topic=topic, pod=logs.pod, pods=logs.pods, start=first, lines=batch)
            first += len(batch)
            batch, size = [], 0
        batch.append(line)
        size += length
    if batch or start == 0:
        yield LogFrame(topic=topic, pod=logs.pod, pods=logs.pods, start=first, lines=batch)
