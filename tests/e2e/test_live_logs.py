"""Live logs over the sandbox's WebSocket API (`/ws`, the real `ws` handlers): a subscriber receives a running
job's lines as they are written; one that disconnects mid-stream is forgotten while the other keeps receiving; an
unauthenticated `$connect` is refused; a bad subscription gets an error frame that says what to send.

The sockets are opened in-process (Starlette's test client on the sandbox's app), beside the served sandbox whose
clusters, jobs and Kubernetes API they use.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketDisconnect
from starlette.websockets import WebSocketDisconnect as ServerDisconnect

from controlplane.settings import settings
from sandbox.server.app import build_app
from tests.conftest import aws_client

TAG = "wslogs"
INSTANCE_TYPE = "ml.g6.4xlarge"
JOB = {"image": "train:1", "nodes": 1, "gpusPerNode": 1, "instanceType": INSTANCE_TYPE}


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, storage=True, features={"trainingOperator": {"enabled": True}})
    return TAG


@pytest.fixture(scope="module")
def sockets(running_sandbox) -> Iterator[TestClient]:
    with TestClient(build_app(running_sandbox.sandbox)) as client:
        yield client


@pytest.fixture
def slow_steps(running_sandbox) -> Iterator[None]:
    """Steps of 0.1 s: a job writes its 30 lines over 3 s, while the subscribers watch."""
    training = running_sandbox.sandbox.training
    before, training.seconds_per_line = training.seconds_per_line, 0.1
    yield
    training.seconds_per_line = before


def submit(running_sandbox, name: str) -> None:
    with running_sandbox.client("sandbox-operator") as api:
        submitted = api.post(f"/clusters/{TAG}/jobs", json={"name": name, **JOB})
        assert submitted.status_code == 201, submitted.text
        deadline = time.monotonic() + 30
        while not api.get(f"/clusters/{TAG}/jobs/{name}").json()["pods"]:
            assert time.monotonic() < deadline, "the job's pods never appeared"
            time.sleep(0.05)


def receive(socket: Any) -> dict[str, Any]:
    return json.loads(socket.receive_text())


def read_lines(socket: Any, wanted: int, limit: float = 30) -> list[str]:
    """Lines from the socket's frames (deduplicated by `start`, as the console does) until `wanted` or the end."""
    lines: list[str] = []
    deadline = time.monotonic() + limit
    while len(lines) < wanted and time.monotonic() < deadline:
        frame = receive(socket)
        if frame["type"] == "ended":
            break
        if frame["type"] == "lines":
            lines = lines[: frame["start"]] + frame["lines"]
    return lines


def followers(topic: str) -> list[str]:
    items = aws_client("dynamodb", region_name="us-east-1").query(
        TableName=settings().connections_table,
        IndexName="byTopic",
        KeyConditionExpression="topic = :t",
        ExpressionAttributeValues={":t": {"S": topic}},
    )["Items"]
    return [item["connectionId"]["S"] for item in items]


def test_a_viewer_receives_a_running_jobs_lines_over_the_websocket(running_sandbox, cluster, sockets, slow_steps):
    submit(running_sandbox, "streamed")
    with sockets.websocket_connect("/ws?token=sandbox-viewer") as socket:
        socket.send_text(json.dumps({"action": "subscribe", "clusterTag": TAG, "jobName": "streamed"}))
        assert receive(socket) == {"type": "subscribed", "topic": f"{TAG}/streamed"}
        lines = read_lines(socket, 20)
    assert len(lines) >= 20
    assert all(line.split(" ", 1)[1].startswith("step ") for line in lines)
    assert [int(line.split()[2].split("/")[0]) for line in lines] == list(range(1, len(lines) + 1))


def test_a_subscriber_that_leaves_mid_stream_is_removed_and_the_other_keeps_receiving(
    running_sandbox, cluster, sockets, slow_steps
):
    submit(running_sandbox, "shared")
    subscribe = json.dumps({"action": "subscribe", "clusterTag": TAG, "jobName": "shared"})
    with sockets.websocket_connect("/ws?token=sandbox-viewer") as staying:
        staying.send_text(subscribe)
        with sockets.websocket_connect("/ws?token=sandbox-operator") as leaving:
            leaving.send_text(subscribe)
            assert len(read_lines(leaving, 3)) >= 3
            assert len(followers(f"{TAG}/shared")) == 2
        deadline = time.monotonic() + 10
        while len(followers(f"{TAG}/shared")) != 1:
            assert time.monotonic() < deadline, "the closed connection was never removed"
            time.sleep(0.05)
        assert len(read_lines(staying, 25)) >= 25


def test_an_unauthenticated_connect_is_refused(sockets) -> None:
    for url in ("/ws", "/ws?token=not-a-token"):
        with pytest.raises((WebSocketDisconnect, ServerDisconnect)), sockets.websocket_connect(url) as socket:
            socket.receive_text()


def test_a_bad_subscription_gets_an_error_frame_that_says_what_to_send(cluster, sockets) -> None:
    with sockets.websocket_connect("/ws?token=sandbox-viewer") as socket:
        socket.send_text(json.dumps({"action": "subscribe", "clusterTag": TAG}))
        refused = receive(socket)
        assert (refused["type"], refused["code"]) == ("error", "InvalidRequest")
        assert "jobName" in refused["message"]
        socket.send_text(json.dumps({"action": "subscribe", "clusterTag": TAG, "jobName": "missing"}))
        assert receive(socket)["code"] == "JobNotFound"
        socket.send_text("hello")
        assert "subscribe" in receive(socket)["message"]
