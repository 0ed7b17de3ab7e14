"""HyperPod nodes: the live list with health, reboot / replace / delete as operations that end when each node has
settled, each confirmed by the person first, id validation before any call, and automatic recovery of a failed
node."""

from __future__ import annotations

import time

import httpx
import pytest

from controlplane.models.operations import OperationKind
from tests.conftest import aws_client
from tests.workflows.confirm import confirmed
from tests.workflows.faults import fail_each_step_in_turn

TAG = "nodes"
UNKNOWN = "i-0123456789abcdef0"


@pytest.fixture(scope="module")
def cluster(running_sandbox):
    running_sandbox.build_cluster(TAG, instances=3)
    return running_sandbox


def nodes(api: httpx.Client) -> dict[str, dict]:
    return {node["nodeId"]: node for node in api.get(f"/clusters/{TAG}/nodes").json()["nodes"]}


def settle(api: httpx.Client, count: int, limit: float = 30) -> dict[str, dict]:
    """Wait until `count` nodes are Running, Ready and Schedulable."""
    deadline = time.monotonic() + limit
    while True:
        found = nodes(api)
        healthy = [
            n for n in found.values() if n["status"] == "Running" and n["ready"] and n["health"] == "Schedulable"
        ]
        if (len(healthy) == count and len(found) == count) or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def finished(cluster, response: httpx.Response) -> dict:
    """The operation a node action started, once it is terminal."""
    assert response.status_code == 202, response.text
    return cluster.wait_terminal(response.json()["operationId"])


def test_nodes_list_health_capacity_and_zone(cluster):
    with cluster.client("sandbox-viewer") as api:
        found = settle(api, 3)
    assert len(found) == 3
    for node in found.values():
        assert node["instanceGroup"] == "accelerated-worker"
        assert node["instanceType"] == "ml.g6.4xlarge"
        assert (node["capacityType"], node["availabilityZone"]) == ("on-demand", "us-west-2c")
        assert node["ready"] is True and node["schedulable"] is True


def test_a_reboot_without_a_token_answers_its_plan_and_token_and_reboots_nothing(cluster):
    with cluster.client("sandbox-operator") as api:
        first = sorted(settle(api, 3))[0]
        mark = cluster.sandbox.aws_calls.mark()
        plan = api.post(f"/clusters/{TAG}/nodes/{first}/reboot")
        assert plan.status_code == 200, plan.text
        assert plan.json()["confirmationToken"] and "operationId" not in plan.json()
        assert "pods on it stop" in plan.json()["message"]
        assert not [call for call in cluster.sandbox.aws_calls.since(mark) if "BatchReboot" in call]
        batch = api.post(f"/clusters/{TAG}/nodes/batch", json={"action": "reboot", "nodeIds": [first]})
        assert batch.status_code == 200 and batch.json()["confirmationToken"], batch.text
        assert "reboot_nodes" not in [
            op["kind"] for op in api.get("/operations", params={"clusterTag": TAG}).json()["operations"]
        ]


def test_a_reboot_is_an_operation_that_ends_when_the_node_is_running_again(cluster):
    with cluster.client("sandbox-operator") as api:
        first = sorted(settle(api, 3))[0]
        rebooted = confirmed(api, "POST", f"/clusters/{TAG}/nodes/{first}/reboot")
        assert rebooted.json()["statusTool"] == "operation_wait"
        operation = finished(cluster, rebooted)
        assert (operation["kind"], operation["status"]) == ("reboot_nodes", "SUCCEEDED")
        assert operation["stages"][0]["message"] == f"{first} Running"
        assert nodes(api)[first]["status"] == "Running"


def test_a_batch_reboot_is_one_operation_and_one_batch_call(cluster):
    with cluster.client("sandbox-operator") as api:
        first, second = sorted(settle(api, 3))[:2]
        request = {"action": "reboot", "nodeIds": [first, second]}
        token = api.post(f"/clusters/{TAG}/nodes/batch", json=request).json()["confirmationToken"]
        mark = cluster.sandbox.aws_calls.mark()
        batch = api.post(f"/clusters/{TAG}/nodes/batch", json={**request, "confirmationToken": token})
        assert finished(cluster, batch)["status"] == "SUCCEEDED"
        calls = [call for call in cluster.sandbox.aws_calls.since(mark) if "BatchReboot" in call]
        assert len(calls) == 1
        assert set(settle(api, 3)) >= {first, second}


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("post", f"nodes/{UNKNOWN}/reboot", 404, "NodeNotFound"),
        ("post", "nodes/i-nothex/reboot", 400, "InvalidRequest"),
        ("delete", f"nodes/{UNKNOWN}", 404, "NodeNotFound"),
    ],
)
def test_unknown_or_malformed_node_ids_are_refused_before_any_call(cluster, method, path, status, code):
    with cluster.client() as api:
        before = nodes(api)
        response = getattr(api, method)(f"/clusters/{TAG}/{path}")
        assert response.status_code == status, response.text
        assert response.json()["code"] == code
        assert nodes(api) == before


def test_a_batch_with_one_unknown_id_does_nothing_to_the_others(cluster):
    with cluster.client() as api:
        known = sorted(settle(api, 3))[0]
        response = api.post(f"/clusters/{TAG}/nodes/batch", json={"action": "reboot", "nodeIds": [known, UNKNOWN]})
        assert response.status_code == 404 and UNKNOWN in response.json()["message"]
        assert nodes(api)[known]["status"] == "Running"


def test_replace_needs_the_persons_confirmation_and_reports_the_new_node(cluster):
    with cluster.client() as api:
        target = sorted(settle(api, 3))[0]
        plan = api.post(f"/clusters/{TAG}/nodes/{target}/replace")
        assert plan.status_code == 200
        assert "DESTROYED" in plan.json()["message"] and "operationId" not in plan.json()
        assert nodes(api)[target]["status"] == "Running"
        token = plan.json()["confirmationToken"]
        with cluster.client("sandbox-operator") as operator:
            assert (
                operator.post(
                    f"/clusters/{TAG}/nodes/{target}/replace", params={"confirmationToken": token}
                ).status_code
                == 403
            )
        # The node is still being replaced (not gone yet) when the token is reused.
        with cluster.sandbox.hyperpod.held():
            started = api.post(f"/clusters/{TAG}/nodes/{target}/replace", params={"confirmationToken": token})
            reused = api.post(f"/clusters/{TAG}/nodes/{target}/replace", params={"confirmationToken": token})
        assert reused.status_code == 400 and reused.json()["code"] == "ConfirmationRequired", reused.text
        operation = finished(cluster, started)
        assert (operation["kind"], operation["status"]) == ("replace_nodes", "SUCCEEDED")
        after = settle(api, 3)
    assert target not in after and len(after) == 3
    message = operation["stages"][0]["message"]
    assert message.startswith(f"{target} replaced by i-") and message.endswith("(Running)")
    assert message.split(" replaced by ")[1].split(" ")[0] in after


def test_delete_shrinks_the_group_by_one(cluster):
    with cluster.client() as api:
        target = sorted(settle(api, 3))[0]
        operation = finished(cluster, confirmed(api, "DELETE", f"/clusters/{TAG}/nodes/{target}"))
        assert (operation["kind"], operation["status"]) == ("delete_nodes", "SUCCEEDED")
        assert target not in nodes(api)
        after = settle(api, 2)
    assert target not in after
    (group,) = aws_client("sagemaker", region_name="us-west-2").describe_cluster(ClusterName=f"hp-cluster-{TAG}")[
        "InstanceGroups"
    ]
    assert group["TargetCount"] == 2


def test_an_unhealthy_node_shows_its_health_label_and_is_replaced_automatically(cluster):
    with cluster.client() as api:
        target = sorted(settle(api, 2))[0]
        # The node is read pending replacement before automatic recovery replaces it.
        with cluster.sandbox.hyperpod.held():
            fault = httpx.post(
                f"{cluster.base_url}/sandbox/node-faults", json={"clusterName": f"hp-cluster-{TAG}", "nodeId": target}
            )
            assert fault.status_code == 204
            assert nodes(api)[target]["health"] == "UnschedulablePendingReplacement"
            assert nodes(api)[target]["schedulable"] is False
        after = settle(api, 2)
    assert target not in after


def test_a_dry_run_plans_with_a_token_without_acting(cluster):
    with cluster.client() as api:
        target = sorted(settle(api, 2))[0]
        reboot = api.post(f"/clusters/{TAG}/nodes/{target}/reboot", params={"dryRun": "true"})
        assert reboot.status_code == 200, reboot.text
        assert reboot.json()["actions"][0]["name"] == target
        assert reboot.json()["confirmationToken"] and "operationId" not in reboot.json()
        batch = api.post(
            f"/clusters/{TAG}/nodes/batch", params={"dryRun": "true"}, json={"action": "delete", "nodeIds": [target]}
        )
        assert batch.json()["confirmationToken"] and "operationId" not in batch.json()
        assert nodes(api)[target]["status"] == "Running"


NODE_ACTIONS = {
    "reboot": (OperationKind.REBOOT_NODES, "POST", "reboot"),
    "replace": (OperationKind.REPLACE_NODES, "POST", "replace"),
    "delete": (OperationKind.DELETE_NODES, "DELETE", ""),
}


@pytest.mark.parametrize("action", NODE_ACTIONS)
def test_every_step_of_a_node_action_fails_once_in_turn_and_resume_settles_the_nodes(cluster, action):
    kind, method, verb = NODE_ACTIONS[action]
    with cluster.client() as api:
        before = settle(api, 2)
        target = sorted(before)[0]

        def start() -> str:
            path = f"/clusters/{TAG}/nodes/{target}" + (f"/{verb}" if verb else "")
            response = confirmed(api, method, path)
            assert response.status_code == 202, response.text
            return str(response.json()["operationId"])

        fail_each_step_in_turn(cluster, kind, start)
        after = settle(api, 1 if action == "delete" else 2)
    assert (target in after) == (action == "reboot")
    assert len(after) == len(before) - (action == "delete")


def test_a_reboot_that_leaves_the_node_pending_replacement_fails_saying_what_it_is_and_to_replace_it(cluster):
    """Issue 30, finding 4: the reboot reported SUCCEEDED while the node stayed UnschedulablePendingReplacement."""
    with cluster.client("sandbox-operator") as api:
        # The earlier tests deleted nodes: wait for the ones the group has, not for three (a settle for a count the
        # group never reaches waits out its whole limit).
        count = len(nodes(api))
        target = sorted(settle(api, count))[0]
        fault = httpx.post(
            f"{cluster.base_url}/sandbox/node-faults",
            json={"clusterName": f"hp-cluster-{TAG}", "nodeId": target, "hyperPodRepairs": False},
        )
        assert fault.status_code == 204, fault.text
        operation = finished(cluster, confirmed(api, "POST", f"/clusters/{TAG}/nodes/{target}/reboot"))
        assert (operation["status"], operation["error"]["code"]) == ("FAILED", "NodeNotRecoveredError"), operation
        message = operation["error"]["message"]
        assert f"{target} is Running but its health is UnschedulablePendingReplacement" in message
        assert "hyperpod_node_replace" in message
        assert (nodes(api)[target]["status"], nodes(api)[target]["health"]) == (
            "Running",
            "UnschedulablePendingReplacement",
        )
    with cluster.client() as api:
        assert finished(cluster, confirmed(api, "POST", f"/clusters/{TAG}/nodes/{target}/replace"))["status"] == (
            "SUCCEEDED"
        )
        assert target not in settle(api, count)
