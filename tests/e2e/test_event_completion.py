"""Completion by event: an event-ended node wait finishes within seconds of its event, with the fallback poll an hour
away (its own sandbox: HyperPod takes a second per transition here, so the wait is parked before the event).

A reboot, a replacement or a deletion leaves the cluster InService: HyperPod sends no state change, only an
Info-level Cluster Event about the instance, which the events rules must route for the wait to end.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from controlplane import wiring
from tests.conftest import SANDBOX_TIMINGS, RunningSandbox, raise_network_quotas, serve_sandbox
from tests.workflows.confirm import confirmed

TAG = "evwait"
ACTIONS = ("reboot", "replace", "delete")


@pytest.fixture(scope="module")
def sandbox_with_nodes() -> Iterator[tuple[RunningSandbox, dict[str, str]]]:
    """A cluster with a node for each action, and the poll of every wait an hour away once it is built."""
    with serve_sandbox(**{**SANDBOX_TIMINGS, "seconds_to_active": 1.0}) as running_sandbox:
        raise_network_quotas(running_sandbox.sandbox)
        running_sandbox.build_cluster(TAG, instances=len(ACTIONS))
        with running_sandbox.client() as api:
            nodes = [node["nodeId"] for node in api.get(f"/clusters/{TAG}/nodes").json()["nodes"]]
        os.environ["IS_POLL_SECONDS"] = os.environ["IS_POLL_MAX_SECONDS"] = "3600"  # polling effectively disabled
        wiring.reset()
        yield running_sandbox, dict(zip(ACTIONS, nodes, strict=True))


@pytest.mark.parametrize("action", ACTIONS)
def test_a_node_action_finishes_within_5_seconds_of_its_event_with_the_fallback_poll_an_hour_away(
    sandbox_with_nodes, action
):
    running_sandbox, nodes = sandbox_with_nodes
    router = running_sandbox.sandbox.events
    method, path = ("DELETE", "") if action == "delete" else ("POST", f"/{action}")
    with running_sandbox.client() as api:
        request = f"/clusters/{TAG}/nodes/{nodes[action]}{path}"
        response = confirmed(api, method, request)
        assert response.status_code == 202, response.text
        operation = running_sandbox.wait_terminal(response.json()["operationId"], limit_seconds=60)
        finished = time.monotonic()
    assert operation["status"] == "SUCCEEDED", operation
    woke = [
        (at, event)
        for at, event, result in router.timeline
        if result.get("woken") and event["detail"].get("EventDetails", {}).get("InstanceId") == nodes[action]
    ]
    assert woke, f"no event about {nodes[action]} woke the {action} wait"
    at, event = woke[-1]
    assert (event["detail-type"], event["detail"]["EventDetails"]["EventLevel"]) == (
        "SageMaker HyperPod Cluster Event",
        "Info",
    )
    seconds = finished - at
    print(f"{action} finished {seconds:.2f} s after the event that woke its wait (fallback poll: 3600 s)")
    assert seconds <= 5
