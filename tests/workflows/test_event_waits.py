"""An event wait that fails is a failed step like any other: recorded with its state's name, and resumed to success
(its own sandbox, whose fallback poll is 3 s: with the suite's zero-second poll the wait times out at once, before its
step could fail)."""

from __future__ import annotations

from controlplane.workflows import step_key
from controlplane.workflows.asl import AWAIT_EVENT
from tests.conftest import SANDBOX_TIMINGS, raise_network_quotas, serve_sandbox
from tests.e2e.test_events import hyperpod_cluster


def test_a_fault_in_the_event_wait_fails_the_operation_at_that_step_and_a_resume_succeeds():
    with serve_sandbox(**{**SANDBOX_TIMINGS, "poll_seconds": 3}) as running_sandbox:
        raise_network_quotas(running_sandbox.sandbox)
        node_id = hyperpod_cluster(running_sandbox, "evfault")
        running_sandbox.sandbox.add_fault(step_key(AWAIT_EVENT), 1)
        with running_sandbox.client() as api:
            # HyperPod's time stands still, so the node is still rebooting at the first check and the loop waits.
            with running_sandbox.sandbox.hyperpod.held():
                accepted = api.post(f"/clusters/evfault/nodes/{node_id}/reboot").json()
                failed = running_sandbox.wait_terminal(accepted["operationId"], limit_seconds=60)
            assert failed["status"] == "FAILED", failed
            assert failed["error"]["step"] == "Wait For Nodes To Reboot"  # the state that runs the event wait
            assert api.post(f"/operations/{accepted['operationId']}/resume").status_code == 202
            done = running_sandbox.wait_terminal(accepted["operationId"], limit_seconds=60)
        assert done["status"] == "SUCCEEDED", done.get("error")
