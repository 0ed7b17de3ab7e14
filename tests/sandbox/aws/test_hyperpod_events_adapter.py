"""The ListClusterEvents adapter against the simulated HyperPod: it reads every page newest first as it is iterated,
passes the filters, takes events at its `before` time (ListClusterEvents' EventTimeBefore is exclusive), and a
missing cluster has none."""

from __future__ import annotations

import pytest

from controlplane.adapters.aws import hyperpod_activity
from controlplane.adapters.aws.hyperpod_activity import AwsHyperPodActivityGateway
from controlplane.core.ports.hyperpod_activity import EventFilter
from tests.sandbox.aws import test_hyperpod_wire as wire
from tests.sandbox.aws.test_hyperpod_health_checks import start
from tests.sandbox.aws.test_hyperpod_wire import REGION, World, wait_until

account, world = wire.account, wire.world


def test_events_are_read_across_pages_newest_first_filtered_and_up_to_before(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hyperpod_activity, "PAGE_SIZE", 1)
    world.create(NodeProvisioningMode="Continuous")
    world.wait_for("hp")
    first, _ = (node["InstanceId"] for node in world.nodes())
    start(world)
    wait_until(
        lambda: world.sagemaker.list_cluster_operations(ClusterName="hp", Status="Done")["ClusterOperationSummaries"]
    )
    gateway = AwsHyperPodActivityGateway(REGION)

    events = list(gateway.events("hp", EventFilter()))
    mine = list(gateway.events("hp", EventFilter(node_id=first, instance_group="workers")))

    assert len(events) == 4 and [event.time for event in events] == sorted((e.time for e in events), reverse=True)
    assert {event.source for event in events} == {"hyperpod"}
    assert len(mine) == 2 and {event.nodeId for event in mine} == {first}
    oldest = events[-1]
    assert oldest.eventId in {event.eventId for event in gateway.events("hp", EventFilter(), before=oldest.time)}
    assert list(gateway.events("missing", EventFilter())) == []
