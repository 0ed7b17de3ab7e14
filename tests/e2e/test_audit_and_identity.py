"""GET /me and GET /audit through the running sandbox: who the API takes the caller for, and the trail of what
callers did, newest first, filtered and paged."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("role", ["viewer", "operator", "admin"])
def test_me_names_the_caller_and_the_role_the_api_enforces(running_sandbox, role):
    with running_sandbox.client(f"sandbox-{role}") as api:
        me = api.get("/me").json()
    assert me == {"principal": f"sandbox-{role}", "source": "cognito", "role": role, "via": None}


def test_the_audit_trail_shows_a_clusters_requests_newest_first_with_their_outcome(running_sandbox):
    with running_sandbox.client() as api:
        accepted = api.post("/clusters/eks", json={"clusterTag": "trail", "region": "us-west-2"}).json()
        refused = api.post("/clusters/eks", json={"clusterTag": "trail", "region": "us-west-2"}).json()
    running_sandbox.wait_terminal(accepted["operationId"])
    with running_sandbox.client("sandbox-operator") as api:
        trail = api.get("/audit", params={"clusterTag": "trail"}).json()
        by_operation = api.get("/audit", params={"operationId": accepted["operationId"]}).json()
    assert [(e["actor"], e["action"], e["outcome"]) for e in trail["entries"]] == [
        ("sandbox-admin", "POST /clusters/eks", "409"),
        ("sandbox-admin", "POST /clusters/eks", "202"),
    ]
    assert trail["entries"][0]["requestId"] == refused["requestId"]
    assert trail["continue"] is None
    assert [e["outcome"] for e in by_operation["entries"]] == ["202"]


def test_the_audit_trail_pages_across_clusters_and_filters_by_actor(running_sandbox):
    for role in ("operator", "admin"):
        with running_sandbox.client(f"sandbox-{role}") as api:
            for _ in range(2):
                api.post("/clusters/pagedaudit/storage", json={"bucketName": "no-such"}, params={"dryRun": "true"})
    with running_sandbox.client("sandbox-operator") as api:
        first = api.get("/audit", params={"actor": "sandbox-operator", "limit": 1}).json()
        second = api.get("/audit", params={"actor": "sandbox-operator", "limit": 1, "continue": first["continue"]})
        everyone = api.get("/audit", params={"limit": 100}).json()
    assert [e["actor"] for e in first["entries"] + second.json()["entries"]] == ["sandbox-operator"] * 2
    assert {"sandbox-operator", "sandbox-admin"} <= {e["actor"] for e in everyone["entries"]}
    times = [e["at"] for e in everyone["entries"]]
    assert times == sorted(times, reverse=True)


def test_a_viewer_may_not_read_the_audit_trail_and_a_misspelt_filter_is_refused(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get("/audit").status_code == 403
    with running_sandbox.client("sandbox-operator") as api:
        refused = api.get("/audit", params={"cluster": "demo"})
    assert refused.status_code == 400
    assert "clusterTag, actor, operationId, limit, continue" in refused.json()["message"]
