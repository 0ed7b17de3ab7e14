"""A resumed operation keeps each attempt: the first attempt's error and stage times survive the resume that
follows, and an ended operation has no current step."""

from __future__ import annotations


def test_a_failed_stage_resumed_shows_two_attempts_with_the_first_attempts_error_intact(running_sandbox):
    running_sandbox.sandbox.add_fault("Ensure Cluster Role", 1)
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "attempts", "region": "us-west-2"}).json()
    operation_id = accepted["operationId"]
    failed = running_sandbox.wait_terminal(operation_id)
    assert (failed["status"], failed["currentStep"]) == ("FAILED", None)
    with running_sandbox.client() as api:
        assert api.post(f"/operations/{operation_id}/resume").status_code == 202
    done = running_sandbox.wait_terminal(operation_id)

    assert (done["status"], done["attempt"], done["currentStep"]) == ("SUCCEEDED", 2, None)
    first, second = done["attempts"]
    assert (first["number"], first["status"], first["lastStep"]) == (1, "FAILED", "Ensure Cluster Role")
    assert first["error"] == failed["error"] and first["error"]["code"] == "SandboxFaultInjected"
    assert [(stage["name"], stage["status"]) for stage in first["stages"]] == [
        ("network", "SUCCEEDED"),
        ("iam", "FAILED"),
    ]
    assert (second["number"], second["status"], second["error"]) == (2, "SUCCEEDED", None)
    assert [stage["name"] for stage in second["stages"]] == [
        "iam",
        "eks-control-plane",
        "cluster-access",
        "kubernetes-api",
        "events",
    ]
    # The network stage ran in the first attempt only: the resume passed through it and kept its times.
    assert done["stages"][0] == failed["stages"][0] == first["stages"][0]
