"""A wait that outlives its deadline, end to end: the operation fails naming what it waited for and how long, and a
resume waits again and finishes."""

from __future__ import annotations

from datetime import timedelta

from controlplane.core import deadlines


def keep_creating(parsed, **_):
    """DescribeCluster answers CREATING, as a control plane that takes longer than its deadline would."""
    cluster = parsed.get("cluster") if isinstance(parsed, dict) else None
    if cluster and cluster.get("status") == "ACTIVE":
        cluster["status"] = "CREATING"


def test_a_wait_past_its_deadline_fails_the_operation_naming_the_wait_and_resume_completes_it(
    running_sandbox, monkeypatch
):
    from controlplane.adapters.aws import session

    events = session.session().events
    event = "after-call.eks.DescribeCluster"
    events.register(event, keep_creating, unique_id="keep-creating")
    session._client.cache_clear()
    try:
        with monkeypatch.context() as patch:
            patch.setattr(deadlines, "EKS_CLUSTER_ACTIVE", timedelta(0))
            with running_sandbox.client() as api:
                accepted = api.post("/clusters/eks", json={"clusterTag": "deadline", "region": "us-west-2"}).json()
            failed = running_sandbox.wait_terminal(accepted["operationId"])
    finally:
        events.unregister(event, unique_id="keep-creating")
        session._client.cache_clear()

    assert failed["status"] == "FAILED"
    assert failed["error"]["code"] == "WaitTimeoutError"
    assert failed["error"]["step"] == "Check EKS Cluster"
    message = failed["error"]["message"]
    assert "for EKS cluster eks-cluster-deadline to be ACTIVE; its status is CREATING" in message
    assert "Gave up after waiting " in message and "this wait's deadline: 0 s" in message
    assert f"POST /operations/{accepted['operationId']}/resume continues waiting" in message

    with running_sandbox.client() as api:
        assert api.post(f"/operations/{accepted['operationId']}/resume").status_code == 202
    done = running_sandbox.wait_terminal(accepted["operationId"])
    assert done["status"] == "SUCCEEDED", done.get("error")
    assert done["attempt"] == 2
