"""StartClusterHealthCheck on the simulated HyperPod, through boto3: the request is refused whole as SageMaker refuses
it, the checked nodes go DeepHealthCheckInProgress (out of scheduling), and each check ends Passed, or Failed with the
node rebooted or replaced when a fault was injected."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from sandbox.aws.hyperpod.health_checks import DEEP_HEALTH_LABEL
from sandbox.aws.hyperpod.kubernetes import HEALTH_LABEL
from tests.sandbox.aws import test_hyperpod_wire as wire
from tests.sandbox.aws.test_hyperpod_wire import World, wait_until

# The wire tests' moto account and fresh simulation per test.
account, world = wire.account, wire.world

CHECKS = ["InstanceStress", "InstanceConnectivity"]


def start(world: World, group: str = "workers", ids: list[str] | None = None) -> dict[str, Any]:
    configuration: dict[str, Any] = {"InstanceGroupName": group, "DeepHealthChecks": CHECKS}
    if ids is not None:
        configuration["InstanceIds"] = ids
    return world.sagemaker.start_cluster_health_check(ClusterName="hp", DeepHealthCheckConfigurations=[configuration])


def status(world: World, node_id: str) -> str | None:
    try:
        return world.sagemaker.describe_cluster_node(ClusterName="hp", NodeId=node_id)["NodeDetails"]["InstanceStatus"][
            "Status"
        ]
    except ClientError:
        return None


def labels(world: World, node_id: str) -> dict[str, str]:
    return world.kubernetes_nodes()[f"hyperpod-{node_id}"]["metadata"]["labels"]


def test_a_checked_node_is_in_its_check_out_of_scheduling_then_passes(world: World) -> None:
    arn = world.create()
    world.wait_for("hp")
    first, second = (node["InstanceId"] for node in world.nodes())

    with world.hyperpod.held():
        assert start(world, ids=[first])["ClusterArn"] == arn
        assert (status(world, first), status(world, second)) == ("DeepHealthCheckInProgress", "Running")
        assert labels(world, first)[DEEP_HEALTH_LABEL] == "InProgress"
        assert labels(world, first)[HEALTH_LABEL] == "Unschedulable"

    wait_until(lambda: status(world, first) == "Running")
    assert labels(world, first)[DEEP_HEALTH_LABEL] == "Passed"
    assert labels(world, first)[HEALTH_LABEL] == "Schedulable"
    assert not any(t["key"] == HEALTH_LABEL for t in world.kubernetes_nodes()[f"hyperpod-{first}"]["spec"]["taints"])


def test_a_node_given_a_fault_fails_its_check_and_is_replaced(world: World) -> None:
    world.create()
    world.wait_for("hp")
    victim = world.nodes()[0]["InstanceId"]
    world.hyperpod.fail_health_check("hp", victim)

    start(world)

    wait_until(lambda: status(world, victim) is None and len(world.nodes()) == 2)
    assert all(node["InstanceStatus"]["Status"] in ("Running", "Pending") for node in world.nodes())


def test_a_node_given_a_reboot_fault_is_rebooted_and_its_label_says_failed(world: World) -> None:
    world.create()
    world.wait_for("hp")
    victim = world.nodes()[0]["InstanceId"]
    world.hyperpod.fail_health_check("hp", victim, recovery="reboot")

    start(world, ids=[victim])

    wait_until(lambda: status(world, victim) == "Pending")
    wait_until(lambda: status(world, victim) == "Running")
    assert labels(world, victim)[DEEP_HEALTH_LABEL] == "Failed"
    assert labels(world, victim)[HEALTH_LABEL] == "Schedulable"


@pytest.mark.parametrize(
    ("group", "ids", "message"),
    [
        ("nope", None, "Instance group nope does not exist"),
        ("workers", ["i-0123456789abcdef0"], "Instance i-0123456789abcdef0 is not in instance group workers"),
    ],
)
def test_an_unknown_group_or_node_is_refused_and_nothing_changes(world: World, group, ids, message) -> None:
    world.create()
    world.wait_for("hp")
    with pytest.raises(ClientError, match=message) as raised:
        start(world, group, ids)
    assert raised.value.response["Error"]["Code"] == "ValidationException"
    assert {node["InstanceStatus"]["Status"] for node in world.nodes()} == {"Running"}


def test_a_node_already_in_a_check_is_refused(world: World) -> None:
    world.create()
    world.wait_for("hp")
    first = world.nodes()[0]["InstanceId"]
    with world.hyperpod.held():
        start(world, ids=[first])
        with pytest.raises(ClientError, match=f"Instance {first} is in DeepHealthCheckInProgress status"):
            start(world, ids=[first])


def test_an_unknown_cluster_is_resource_not_found(world: World) -> None:
    with pytest.raises(ClientError) as raised:
        world.sagemaker.start_cluster_health_check(
            ClusterName="missing",
            DeepHealthCheckConfigurations=[{"InstanceGroupName": "w", "DeepHealthChecks": CHECKS}],
        )
    assert raised.value.response["Error"]["Code"] == "ResourceNotFound"


def test_a_continuous_cluster_records_the_check_as_an_operation_and_its_nodes_events(world: World) -> None:
    world.create(NodeProvisioningMode="Continuous")
    world.wait_for("hp")
    first, second = (node["InstanceId"] for node in world.nodes())
    world.hyperpod.fail_health_check("hp", second)

    start(world)
    (operation,) = world.sagemaker.list_cluster_operations(ClusterName="hp")["ClusterOperationSummaries"]
    assert (operation["Type"], operation["Status"]) == ("DeepHealthCheck", "InProgress")
    wait_until(
        lambda: world.sagemaker.list_cluster_operations(ClusterName="hp", Status="Done")["ClusterOperationSummaries"]
    )

    listed = world.sagemaker.list_cluster_events(ClusterName="hp", OperationId=operation["OperationId"])["Events"]
    described = {event["InstanceId"]: [] for event in listed}
    for event in sorted(listed, key=lambda event: event["EventTime"]):
        described[event["InstanceId"]].append(event["Description"])
    assert [text.split(" workers ", 1)[1] for text in described[first]] == [
        "started deep health checks InstanceConnectivity, InstanceStress (simulated)",
        "passed its deep health checks (simulated)",
    ]
    assert "replaced by i-" in described[second][-1]
    page = world.sagemaker.list_cluster_events(ClusterName="hp", NodeId=first, MaxResults=1)
    assert len(page["Events"]) == 1 and page["NextToken"]
    detail = world.sagemaker.describe_cluster_event(ClusterName="hp", EventId=page["Events"][0]["EventId"])
    assert detail["EventDetails"]["InstanceId"] == first and detail["EventDetails"]["ResourceType"] == "Instance"


def test_a_continuous_clusters_scaling_is_an_operation_with_its_groups_event(world: World) -> None:
    world.create(NodeProvisioningMode="Continuous")
    world.wait_for("hp")
    world.sagemaker.update_cluster(ClusterName="hp", InstanceGroups=[world.group(count=3)])

    def done() -> list[dict[str, Any]]:
        return world.sagemaker.list_cluster_operations(ClusterName="hp", Type="Scaling", Status="Done")[
            "ClusterOperationSummaries"
        ]

    (operation,) = wait_until(done)
    (event,) = world.sagemaker.list_cluster_events(ClusterName="hp", OperationId=operation["OperationId"])["Events"]
    assert (event["ResourceType"], event["InstanceGroupName"]) == ("InstanceGroup", "workers")
    assert "scaled to 3 instances" in event["Description"]
    assert "InstanceId" not in event
