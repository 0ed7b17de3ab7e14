"""The sandbox's controls (`/sandbox/*`) and its WebSocket API (`/ws`) are not open to other web pages.

Any page a person visits can make their browser send a "simple" cross-site POST (a form, text/plain) to
127.0.0.1 and open a WebSocket there, and the sandbox's tokens are public. So a control with a foreign Origin, or whose
body is not declared JSON, is refused before it acts; a WebSocket upgrade with a foreign Origin is refused before
`$connect`. Same-origin requests (the console) and requests without an Origin (curl, the tests, programs: a browser
always sends one) are served as before.

The requests go in-process (Starlette's test client on the sandbox's app, whose own origin is http://testserver),
beside the served sandbox whose state they change.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient, WebSocketDisconnect
from starlette.websockets import WebSocketDisconnect as ServerDisconnect

from sandbox.server.app import build_app
from sandbox.server.controls import control_routes

OWN = "http://testserver"
FOREIGN = ("https://attacker.example", "http://testserver.attacker.example", "http://testserver:8443", "null")
FAULT = '{"step": "Create EKS Cluster", "times": 1}'
# What a cross-site page can send without a CORS preflight (Fetch standard, "CORS-safelisted request-header").
SIMPLE_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x")


@pytest.fixture(scope="module")
def client(running_sandbox) -> Iterator[TestClient]:
    with TestClient(build_app(running_sandbox.sandbox)) as client:
        yield client


@pytest.fixture
def no_faults(running_sandbox) -> Iterator[None]:
    running_sandbox.sandbox.faults.clear()
    yield
    running_sandbox.sandbox.faults.clear()


def pending(client: TestClient) -> list:
    return list(client.get("/sandbox/faults").json()["pending"])


@pytest.mark.parametrize("content_type", SIMPLE_TYPES)
def test_a_cross_site_simple_post_injects_no_fault(client, no_faults, content_type):
    answer = client.post(
        "/sandbox/faults", content=FAULT, headers={"content-type": content_type, "origin": "https://attacker.example"}
    )
    assert answer.status_code == 403, answer.text
    assert answer.json()["code"] == "ForeignOrigin"
    assert pending(client) == []


@pytest.mark.parametrize("origin", FOREIGN)
def test_a_control_with_a_foreign_origin_is_refused_even_as_json(client, no_faults, origin):
    answer = client.post(
        "/sandbox/faults", content=FAULT, headers={"content-type": "application/json", "origin": origin}
    )
    assert answer.status_code == 403, answer.text
    assert "Origin" in answer.json()["message"]
    assert pending(client) == []


def test_reads_and_deletes_with_a_foreign_origin_are_refused_too(client, no_faults, running_sandbox):
    running_sandbox.sandbox.add_fault("Create EKS Cluster", 1, 0)
    foreign = {"origin": "https://attacker.example"}
    assert client.delete("/sandbox/faults", headers=foreign).status_code == 403
    assert client.get("/sandbox/quotas", headers=foreign).status_code == 403
    assert len(pending(client)) == 1


@pytest.mark.parametrize("content_type", [*SIMPLE_TYPES, None])
def test_a_control_body_not_declared_json_is_refused_with_what_to_send(client, no_faults, content_type):
    headers = {"content-type": content_type} if content_type else {}
    answer = client.post("/sandbox/faults", content=FAULT, headers=headers)
    assert answer.status_code == 415, answer.text
    assert answer.json()["code"] == "UnsupportedMediaType"
    assert "Content-Type: application/json" in answer.json()["message"]
    assert pending(client) == []


def test_every_control_that_takes_a_body_refuses_a_form_post(running_sandbox, client):
    writes = [
        (route.path, method)
        for route in control_routes(running_sandbox.sandbox)
        if isinstance(route, Route)
        for method in route.methods or ()
        if method in ("POST", "PUT", "PATCH")
    ]
    assert len(writes) >= 6
    for path, method in writes:
        answer = client.request(method, path, content="{}", headers={"content-type": "text/plain"})
        assert answer.status_code == 415, (method, path, answer.text)


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": OWN, "content-type": "application/json"},
        {"content-type": "application/json"},
        {"content-type": "Application/JSON; charset=utf-8"},
    ],
)
def test_the_console_and_programs_still_inject_faults(client, no_faults, headers):
    answer = client.post("/sandbox/faults", content=FAULT, headers=headers)
    assert answer.status_code == 201, answer.text
    assert answer.json()["pending"] == {"create_eks_cluster": 1}


@pytest.mark.parametrize("origin", FOREIGN)
def test_a_websocket_upgrade_with_a_foreign_origin_is_refused_before_connect(client, origin):
    with (
        pytest.raises((WebSocketDisconnect, ServerDisconnect)) as refused,
        client.websocket_connect("/ws?token=sandbox-admin", headers={"origin": origin}) as socket,
    ):
        socket.send_text('{"action": "subscribe"}')
        socket.receive_json()
    assert refused.value.code == 1008
    assert "Origin" in str(refused.value.reason)


@pytest.mark.parametrize("headers", [{"origin": OWN}, {}])
def test_a_websocket_from_the_console_or_a_program_is_served(client, headers):
    with client.websocket_connect("/ws?token=sandbox-viewer", headers=headers) as socket:
        socket.send_text('{"action": "subscribe"}')
        assert socket.receive_json()["type"] == "error"
