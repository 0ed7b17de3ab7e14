"""Live logs' service against in-memory ports: connect, subscribe, the pusher's fan-out, its lease and hand-over."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.logstream.service import CONNECTION_SECONDS, MAX_FRAME_BYTES, LiveLogService, PushOutcome
from controlplane.core.ports.logstream import PusherLease
from controlplane.models.errors import AuthenticationRequiredError, NotFoundError
from controlplane.models.logstream import LogTopic
from tests.fakes.logstream import (
    InMemoryConnectionRepository,
    RecordingNotifier,
    RecordingPusherLauncher,
    ScriptedLogSource,
)
from tests.fakes.persistence import FakeClock

TOPIC = LogTopic(clusterTag="demo", jobName="llama")


class TickingClock(FakeClock):
    """A clock whose every sleep runs `on_sleep` first: the job writes while the pusher waits."""

    def __init__(self) -> None:
        super().__init__()
        self.on_sleep: Callable[[], None] = lambda: None

    def sleep(self, seconds: float) -> None:
        self.on_sleep()
        super().sleep(seconds)


class World:
    def __init__(self, run_seconds: float = 5.0) -> None:
        self.connections = InMemoryConnectionRepository()
        self.notifier = RecordingNotifier()
        self.launcher = RecordingPusherLauncher()
        self.source = ScriptedLogSource({"llama": {"llama-worker-0": ["step 1"], "llama-worker-1": []}})
        self.clock = TickingClock()
        self.service = LiveLogService(
            self.connections, self.notifier, self.launcher, self.source, self.clock, 1.0, run_seconds
        )

    def connect(self, connection_id: str, role: Role = Role.VIEWER) -> None:
        self.service.connect(connection_id, Actor(principal=f"user-{connection_id}", role=role))

    def log(self, pod: str = "llama-worker-0") -> list[str]:
        return self.source.jobs["llama"][pod]

    def write_each_tick(self, pod: str = "llama-worker-0") -> None:
        def write() -> None:
            self.log(pod).append(f"step {len(self.log(pod)) + 1}")

        self.clock.on_sleep = write


@pytest.fixture
def world() -> World:
    return World()


def test_connect_records_the_connection_for_two_hours(world: World) -> None:
    world.connect("c1")
    assert world.connections.get("c1") is not None
    assert world.connections.expiry["c1"] == world.clock.now().timestamp() + CONNECTION_SECONDS


def test_disconnect_forgets_the_connection(world: World) -> None:
    world.connect("c1")
    world.service.disconnect("c1")
    assert world.connections.get("c1") is None


def test_subscribe_sends_the_lines_so_far_and_starts_one_pusher(world: World) -> None:
    world.connect("c1")
    world.service.subscribe("c1", TOPIC)
    frames = world.notifier.frames["c1"]
    assert frames[0] == {"type": "subscribed", "topic": "demo/llama"}
    assert frames[1]["start"] == 0 and frames[1]["lines"] == ["step 1"] and frames[1]["pod"] == "llama-worker-0"
    assert [topic for topic, _ in world.launcher.started] == ["demo/llama"]
    lease = world.connections.lease("demo/llama")
    assert lease is not None and (lease.pod, lease.sent) == ("llama-worker-0", 1)


def test_a_second_subscriber_joins_the_running_pusher(world: World) -> None:
    world.connect("c1")
    world.connect("c2")
    world.service.subscribe("c1", TOPIC)
    world.service.subscribe("c2", TOPIC)
    assert len(world.launcher.started) == 1
    assert world.notifier.lines("c2") == ["step 1"]


def test_an_expired_lease_is_taken_over(world: World) -> None:
    world.connections.leases["demo/llama"] = PusherLease("demo/llama", "dead", world.clock.now().timestamp() - 1)
    world.connect("c1")
    world.service.subscribe("c1", TOPIC)
    assert len(world.launcher.started) == 1


def test_subscribing_to_a_missing_job_raises_and_follows_nothing(world: World) -> None:
    world.connect("c1")
    with pytest.raises(NotFoundError):
        world.service.subscribe("c1", LogTopic(clusterTag="demo", jobName="nope"))
    assert world.connections.followers("demo/nope") == []
    assert world.launcher.started == []


def test_subscribing_on_an_unknown_connection_is_refused(world: World) -> None:
    with pytest.raises(AuthenticationRequiredError):
        world.service.subscribe("ghost", TOPIC)


def test_the_pusher_fans_new_lines_out_to_every_follower(world: World) -> None:
    world.connect("c1")
    world.connect("c2")
    world.service.subscribe("c1", TOPIC)
    world.service.subscribe("c2", TOPIC)
    world.write_each_tick()
    owner = world.launcher.started[0][1]
    assert world.service.push("demo/llama", owner) is PushOutcome.HANDED_OVER
    expected = [f"step {n}" for n in range(1, 6)]
    assert world.notifier.lines("c1") == expected
    assert world.notifier.lines("c2") == expected
    assert world.launcher.started[-1] == ("demo/llama", owner)


def test_a_gone_follower_is_removed_and_the_others_keep_receiving(world: World) -> None:
    world.connect("c1")
    world.connect("c2")
    world.service.subscribe("c1", TOPIC)
    world.service.subscribe("c2", TOPIC)
    world.notifier.gone.add("c1")
    world.write_each_tick()
    world.service.push("demo/llama", world.launcher.started[0][1])
    assert world.connections.get("c1") is None
    assert world.notifier.lines("c2") == [f"step {n}" for n in range(1, 6)]


def test_the_pusher_stops_and_frees_the_topic_when_no_follower_is_left(world: World) -> None:
    world.connect("c1")
    world.service.subscribe("c1", TOPIC)
    world.service.disconnect("c1")
    assert world.service.push("demo/llama", world.launcher.started[0][1]) is PushOutcome.IDLE
    assert world.connections.lease("demo/llama") is None
    assert len(world.launcher.started) == 1


def test_the_pusher_tells_followers_the_job_ended_and_frees_the_topic(world: World) -> None:
    world.connect("c1")
    world.service.subscribe("c1", TOPIC)
    del world.source.jobs["llama"]
    assert world.service.push("demo/llama", world.launcher.started[0][1]) is PushOutcome.ENDED
    assert world.notifier.frames["c1"][-1]["type"] == "ended"
    assert world.connections.lease("demo/llama") is None


def test_a_pusher_without_the_lease_stops_at_once(world: World) -> None:
    world.connect("c1")
    world.service.subscribe("c1", TOPIC)
    assert world.service.push("demo/llama", "someone-else") is PushOutcome.LOST
    assert world.source.reads == 1


def test_a_restarted_log_is_sent_again_from_its_first_line(world: World) -> None:
    world.connect("c1")
    world.service.subscribe("c1", TOPIC)

    def restart() -> None:
        world.source.jobs["llama"]["llama-worker-0"] = ["restarted"]

    world.clock.on_sleep = restart
    world.service.push("demo/llama", world.launcher.started[0][1])
    restarted = [frame for frame in world.notifier.frames["c1"] if frame.get("lines") == ["restarted"]]
    assert restarted and restarted[0]["start"] == 0


def test_a_pod_topic_follows_that_pod(world: World) -> None:
    world.connect("c1")
    world.service.subscribe("c1", LogTopic(clusterTag="demo", jobName="llama", pod="llama-worker-1"))
    world.write_each_tick("llama-worker-1")
    world.service.push("demo/llama/llama-worker-1", world.launcher.started[0][1])
    assert world.notifier.lines("c1") == ["step 1", "step 2", "step 3", "step 4"]
    assert {frame.get("pod") for frame in world.notifier.frames["c1"][1:]} == {"llama-worker-1"}


def test_many_lines_are_split_into_frames_under_the_frame_limit(world: World) -> None:
    world.source.jobs["llama"]["llama-worker-0"] = [f"{n:05d} " + "x" * 1000 for n in range(100)]
    world.connect("c1")
    world.service.subscribe("c1", TOPIC)
    frames = world.notifier.frames["c1"][1:]
    assert len(frames) > 1
    assert all(len(str(frame).encode()) < MAX_FRAME_BYTES + 2000 for frame in frames)
    starts = [sum(len(f["lines"]) for f in frames[:i]) for i in range(len(frames))]
    assert [frame["start"] for frame in frames] == starts
    assert len(world.notifier.lines("c1")) == 100


def test_topics_are_keyed_by_cluster_job_and_pod() -> None:
    topic = LogTopic(clusterTag="demo", jobName="llama", pod="llama-worker-0")
    assert topic.key == "demo/llama/llama-worker-0"
    assert LogTopic.parse(topic.key) == topic
    assert LogTopic.parse("demo/llama") == LogTopic(clusterTag="demo", jobName="llama")
