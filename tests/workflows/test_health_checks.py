"""Deep health checks through the sandbox: planned and confirmed, an operation that ends when every node's check has,
with each node's outcome in its stage (healthy, or replaced by the node it names when the node fails its check), and
bad input refused before any call."""

from __future__ import annotations

import time

import httpx
import pytest

TAG = "checks"
UNKNOWN = "i-0123456789abcdef0"


@pytest.fixture(scope="module")
def cluster(running_sandbox):
    running_sandbox.build_cluster(TAG, instances=2)
    return running_sandbox


def settle(api: httpx.Client, count: int, limit: float = 30) -> list[str]:
    """The ids of the nodes once `count` are Running and Schedulable."""
    deadline = time.monotonic() + limit
    while True:
        found = api.get(f"/clusters/{TAG}/nodes").json()["nodes"]
        healthy = [node["nodeId"] for node in found if node["status"] == "Running" and node["health"] == "Schedulable"]
        if (len(healthy) == count == len(found)) or time.monotonic() > deadline:
            return sorted(healthy)
        time.sleep(0.05)


def finished(cluster, response: httpx.Response) -> dict:
    assert response.status_code == 202, response.text
    return cluster.wait_terminal(response.json()["operationId"])


def check(api: httpx.Client, body: dict) -> httpx.Response:
    """The request, confirmed with its plan's token."""
    plan = api.post(f"/clusters/{TAG}/health-checks", json=body)
    assert plan.status_code == 200, plan.text
    return api.post(
        f"/clusters/{TAG}/health-checks", json={**body, "confirmationToken": plan.json()["confirmationToken"]}
    )


def test_the_plan_says_the_nodes_leave_scheduling_and_calls_nothing(cluster):
    with cluster.client("sandbox-admin") as api:
        settle_nodes = settle(api, 2)
        mark = cluster.sandbox.aws_calls.mark()
        plan = api.post(f"/clusters/{TAG}/health-checks", json={"instanceGroups": ["accelerated-worker"]})
        assert plan.status_code == 200, plan.text
        assert [action["name"] for action in plan.json()["actions"]] == settle_nodes
        assert "out of scheduling" in plan.json()["message"]
        assert not [call for call in cluster.sandbox.aws_calls.since(mark) if "StartClusterHealthCheck" in call]


def test_a_passing_node_ends_healthy_and_a_failing_one_is_replaced(cluster):
    with cluster.client("sandbox-admin") as api:
        first, second = settle(api, 2)
        cluster.sandbox.hyperpod.fail_health_check(f"hp-cluster-{TAG}", second)
        operation = finished(cluster, check(api, {"nodeIds": [first, second]}))
        assert (operation["kind"], operation["status"]) == ("check_node_health", "SUCCEEDED"), operation
        healthy, replaced = operation["stages"][0]["message"].split("; ")
        assert healthy == f"{first} healthy"
        assert replaced.startswith(f"{second} replaced by i-") and replaced.endswith("(Running)")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"nodeIds": [UNKNOWN]}, 404, "NodeNotFound"),
        ({"instanceGroups": ["nope"]}, 404, "InstanceGroupNotFound"),
        ({}, 400, "InvalidRequest"),
        ({"nodeIds": [UNKNOWN], "checks": ["Nope"]}, 400, "InvalidRequest"),
    ],
)
def test_bad_input_is_refused_before_any_call(cluster, body, status, code):
    with cluster.client("sandbox-admin") as api:
        mark = cluster.sandbox.aws_calls.mark()
        response = api.post(f"/clusters/{TAG}/health-checks", json=body)
        assert (response.status_code, response.json()["code"]) == (status, code), response.text
        assert not [call for call in cluster.sandbox.aws_calls.since(mark) if "StartClusterHealthCheck" in call]


def test_an_operator_may_not_run_deep_health_checks(cluster):
    with cluster.client("sandbox-operator") as api:
        response = api.post(f"/clusters/{TAG}/health-checks", json={"instanceGroups": ["accelerated-worker"]})
        assert response.status_code == 403
