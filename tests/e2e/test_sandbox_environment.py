"""The sandbox's API environment: a long poll lends it to other requests, as concurrent Lambdas would serve them.

A console watching an operation (`GET /operations/{id}/wait`) must not hold back the rest of the console; and the
requests served meanwhile must not mix with the sleeping one (who is calling, what is answered).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from tests.conftest import RunningSandbox


def test_a_long_poll_does_not_hold_back_other_requests_and_keeps_its_own_request(running_sandbox: RunningSandbox):
    running_sandbox.sandbox.eks.seconds = 60  # the EKS stage stays RUNNING for the whole test
    try:
        with running_sandbox.client("sandbox-admin") as admin:
            accepted = admin.post("/clusters/eks", json={"clusterTag": "watched", "region": "us-west-2"})
            assert accepted.status_code == 202, accepted.text
            operation_id = accepted.json()["operationId"]

        def long_poll() -> tuple[float, dict]:
            with running_sandbox.client("sandbox-viewer") as viewer:
                started = time.monotonic()
                answer = viewer.get(f"/operations/{operation_id}/wait", params={"timeoutSeconds": 3})
                assert answer.status_code == 200, answer.text
                return time.monotonic() - started, answer.json()

        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(long_poll)
            time.sleep(0.5)
            started = time.monotonic()
            with running_sandbox.client("sandbox-admin") as admin:
                listed = admin.get("/clusters")
                other = admin.post("/clusters/eks", json={"clusterTag": "meanwhile", "region": "us-west-2"})
            served_in = time.monotonic() - started
            waited, operation = waiting.result()

        assert listed.status_code == 200 and other.status_code == 202, (listed.text, other.text)
        assert served_in < 1.5, f"other requests waited {served_in:.1f} s behind the long poll"
        assert waited >= 2.5, f"the long poll ended after {waited:.1f} s instead of waiting"
        assert operation["operationId"] == operation_id and operation["status"] == "RUNNING"
        with running_sandbox.client("sandbox-viewer") as viewer:
            started_by = viewer.get(f"/operations/{other.json()['operationId']}").json()["actor"]
        assert started_by == "sandbox-admin"
    finally:
        running_sandbox.sandbox.eks.seconds = 0.05
