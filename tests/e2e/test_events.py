"""Day two in the sandbox: HyperPod's node-health event drives the remediation policy end to end, and a duplicate
of it changes nothing."""

from __future__ import annotations

import time


def hyperpod_cluster(running_sandbox, tag: str) -> str:
    """A cluster with one HyperPod node; its node id."""
    running_sandbox.build_cluster(tag)
    with running_sandbox.client() as api:
        (node,) = api.get(f"/clusters/{tag}/nodes").json()["nodes"]
    return str(node["nodeId"])


def decisions(api, tag: str, node_id: str, limit_seconds: float = 30) -> list[dict]:
    """The node's remediation records, once there is one."""
    deadline = time.monotonic() + limit_seconds
    while time.monotonic() < deadline:
        history = api.get(f"/clusters/{tag}/nodes/{node_id}/history").json()["events"]
        found = [event for event in history if event["kind"] == "Remediation"]
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"No remediation recorded for {node_id}")


def fail_node(running_sandbox, tag: str, node_id: str) -> None:
    import httpx

    response = httpx.post(
        f"{running_sandbox.base_url}/sandbox/node-faults",
        json={"clusterName": f"hp-cluster-{tag}", "nodeId": node_id, "hyperPodRepairs": False},
    )
    assert response.status_code == 204, response.text


def test_an_unhealthy_node_under_replace_is_replaced_once_even_when_its_event_comes_twice(running_sandbox):
    tag = "evreplace"
    node_id = hyperpod_cluster(running_sandbox, tag)
    with running_sandbox.client() as api:
        policy = {"action": "replace", "maxActionsPerHour": 5, "maxActionsPerGroupPerHour": 5}
        assert api.put(f"/clusters/{tag}/remediation-policy", json=policy).status_code == 200
        fail_node(running_sandbox, tag, node_id)
        (decision,) = decisions(api, tag, node_id)
        assert (decision["action"], decision["outcome"]) == ("replace", "started")
        health_event = next(
            event
            for event, _ in running_sandbox.sandbox.events.delivered
            if event["detail"].get("InstanceId") == node_id
        )
        assert running_sandbox.sandbox.events.send(health_event)["handled"] == "duplicate"
        operation = running_sandbox.wait_terminal(decision["operationId"])
        assert (operation["kind"], operation["status"]) == ("replace_nodes", "SUCCEEDED")
        operations = api.get("/operations", params={"clusterTag": tag}).json()["operations"]
        assert [op["kind"] for op in operations].count("replace_nodes") == 1
        assert len(decisions(api, tag, node_id)) == 1
        audit = api.get("/audit", params={"clusterTag": tag}).json()["entries"]
        (entry,) = [entry for entry in audit if entry["actor"] == "remediation-policy"]
        assert entry["action"] == f"POST /clusters/{tag}/nodes/{node_id}/replace"
        assert entry["operationId"] == decision["operationId"]
        kinds = {event["kind"] for event in api.get(f"/clusters/{tag}/events").json()["events"]}
        assert {"NodeHealth", "Remediation", "ClusterStateChange"} <= kinds


def test_under_notify_an_unhealthy_node_is_only_recorded(running_sandbox):
    tag = "evnotify"
    node_id = hyperpod_cluster(running_sandbox, tag)
    with running_sandbox.client("sandbox-viewer") as api:
        assert api.get(f"/clusters/{tag}/remediation-policy").json()["action"] == "notify"
        fail_node(running_sandbox, tag, node_id)
        (decision,) = decisions(api, tag, node_id)
        assert (decision["outcome"], decision.get("operationId")) == ("notified", None)
        kinds = [op["kind"] for op in api.get("/operations", params={"clusterTag": tag}).json()["operations"]]
        assert "replace_nodes" not in kinds and "reboot_nodes" not in kinds
        (node,) = api.get(f"/clusters/{tag}/nodes").json()["nodes"]
        assert (node["nodeId"], node["status"]) == (node_id, "Running")
