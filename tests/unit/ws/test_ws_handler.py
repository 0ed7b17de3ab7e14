"""The WebSocket routes' handler: `$connect` needs the authorizer's context, requests that cannot be served are
answered with an error frame, pusher invocations run the service's pusher."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from controlplane import wiring
from controlplane.core.logstream.service import LiveLogService, PushOutcome
from tests.fakes.logstream import (
    InMemoryConnectionRepository,
    RecordingNotifier,
    RecordingPusherLauncher,
    ScriptedLogSource,
)
from tests.fakes.persistence import FakeClock
from ws.handler import lambda_handler


class World:
    def __init__(self) -> None:
        self.connections = InMemoryConnectionRepository()
        self.notifier = RecordingNotifier()
        self.launcher = RecordingPusherLauncher()
        self.source = ScriptedLogSource({"llama": {"llama-0": ["step 1"]}})
        self.service = LiveLogService(self.connections, self.notifier, self.launcher, self.source, FakeClock())


@pytest.fixture
def world(monkeypatch) -> Iterator[World]:
    world = World()
    monkeypatch.setattr(wiring, "live_logs", lambda: world.service)
    yield world


def event(route: str, body: Any = None, authorizer: dict[str, str] | None = None) -> dict[str, Any]:
    context = {"routeKey": route, "connectionId": "c1", "authorizer": authorizer}
    return {"requestContext": context, **({"body": json.dumps(body)} if body is not None else {})}


VIEWER = {"principal": "alice", "role": "viewer"}


def test_connect_records_the_caller_the_authorizer_verified(world: World) -> None:
    assert lambda_handler(event("$connect", authorizer=VIEWER), None) == {"statusCode": 200}
    connection = world.connections.get("c1")
    assert connection is not None and connection.principal == "alice"


@pytest.mark.parametrize("authorizer", [None, {}, {"principal": "alice"}, {"principal": "", "role": "viewer"}])
def test_connect_without_a_verified_caller_is_refused(world: World, authorizer: dict[str, str] | None) -> None:
    assert lambda_handler(event("$connect", authorizer=authorizer), None) == {"statusCode": 401}
    assert world.connections.get("c1") is None


def test_subscribe_then_unsubscribe_then_disconnect(world: World) -> None:
    lambda_handler(event("$connect", authorizer=VIEWER), None)
    lambda_handler(event("subscribe", {"action": "subscribe", "clusterTag": "demo", "jobName": "llama"}), None)
    assert world.connections.followers("demo/llama") == ["c1"]
    assert world.notifier.lines("c1") == ["step 1"]
    lambda_handler(event("unsubscribe", {"action": "unsubscribe"}), None)
    assert world.connections.followers("demo/llama") == []
    lambda_handler(event("$disconnect"), None)
    assert world.connections.get("c1") is None


@pytest.mark.parametrize(
    ("route", "body", "code", "hint"),
    [
        ("subscribe", {"action": "subscribe", "clusterTag": "demo"}, "InvalidRequest", "jobName"),
        ("subscribe", {"action": "subscribe", "clusterTag": "X", "jobName": "llama"}, "InvalidRequest", "clusterTag"),
        ("subscribe", {"action": "subscribe", "clusterTag": "demo", "jobName": "gone"}, "NotFound", "gone"),
        ("$default", {"action": "dance"}, "InvalidRequest", "subscribe"),
    ],
)
def test_a_request_that_cannot_be_served_gets_an_error_frame(
    world: World, route: str, body: dict[str, str], code: str, hint: str
) -> None:
    lambda_handler(event("$connect", authorizer=VIEWER), None)
    assert lambda_handler(event(route, body), None) == {"statusCode": 200}
    frame = world.notifier.frames["c1"][-1]
    assert (frame["type"], frame["code"]) == ("error", code)
    assert hint in frame["message"]


def test_a_push_invocation_runs_the_pusher(world: World) -> None:
    result = lambda_handler({"action": "push", "topic": "demo/llama", "owner": "nobody"}, None)
    assert result == {"outcome": PushOutcome.LOST.value}
