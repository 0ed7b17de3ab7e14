"""Completion by event: an event-ended HyperPod wait finishes within seconds of its event, with the fallback poll an
hour away (its own sandbox: HyperPod takes a second per transition here, so the wait is parked before the event)."""

from __future__ import annotations

import os
import time

from controlplane import wiring
from tests.conftest import SANDBOX_TIMINGS, raise_network_quotas, serve_sandbox
from tests.e2e.test_events import hyperpod_cluster


def test_a_reboot_finishes_within_5_seconds_of_its_event_with_the_fallback_poll_an_hour_away():
    with serve_sandbox(**{**SANDBOX_TIMINGS, "seconds_to_active": 1.0}) as running_sandbox:
        raise_network_quotas(running_sandbox.sandbox)
        tag = "evwait"
        node_id = hyperpod_cluster(running_sandbox, tag)
        os.environ["IS_POLL_SECONDS"] = os.environ["IS_POLL_MAX_SECONDS"] = "3600"  # polling effectively disabled
        wiring.reset()
        router = running_sandbox.sandbox.events
        with running_sandbox.client() as api:
            accepted = api.post(f"/clusters/{tag}/nodes/{node_id}/reboot").json()
            operation = running_sandbox.wait_terminal(accepted["operationId"], limit_seconds=60)
            finished = time.monotonic()
        assert operation["status"] == "SUCCEEDED", operation
        woke = [at for at, _, result in router.timeline if result.get("woken")]
        assert woke, "no event woke the wait"
        seconds = finished - woke[-1]
        print(f"reboot finished {seconds:.2f} s after the event that woke its wait (fallback poll: 3600 s)")
        assert seconds <= 5
