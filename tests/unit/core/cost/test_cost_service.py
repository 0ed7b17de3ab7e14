"""The cost view: instance-hours from the running nodes' launch times; on-demand groups priced, spot and
training-plan capacity labelled and never priced."""

from __future__ import annotations

from datetime import timedelta

import pytest

from controlplane.core.cost.service import CostService
from controlplane.core.ports.hyperpod import HyperPodCluster, HyperPodNode, InstanceGroup
from controlplane.models.errors import ClusterNotFoundError
from tests.fakes.hyperpod import InMemoryHyperPodGateway
from tests.fakes.persistence import FakeClock, InMemoryClusterRegistry
from tests.fakes.pricing import InMemoryPriceGateway
from tests.unit.records import cluster_record

HP = "hp-cluster-demo"
REGION = "us-west-2"


def group(name: str, instance_type: str, **fields: object) -> InstanceGroup:
    return InstanceGroup(
        name=name, instance_type=instance_type, status="InService", current_count=2, target_count=2, **fields
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def hyperpod(clock: FakeClock) -> InMemoryHyperPodGateway:
    gateway = InMemoryHyperPodGateway()
    gateway.clusters[HP] = HyperPodCluster(
        name=HP,
        arn="arn:hp",
        status="InService",
        failure_message=None,
        groups=(
            group("workers", "ml.g5.8xlarge"),
            group("cheap", "ml.g6.4xlarge", capacity_type="spot"),
            group("reserved", "ml.p5.48xlarge", training_plan_arn="arn:plan"),
        ),
    )
    started = clock.now() - timedelta(hours=3)

    def node(node_id: str, group_name: str, status: str = "Running") -> HyperPodNode:
        return HyperPodNode(node_id, group_name, "ml.g5.8xlarge", status, None, started, None)

    gateway.cluster_nodes[HP] = [
        node("i-1", "workers"),
        node("i-2", "workers"),
        node("i-3", "workers", status="Pending"),
        node("i-4", "cheap"),
        node("i-5", "reserved"),
    ]
    return gateway


@pytest.fixture
def prices() -> InMemoryPriceGateway:
    return InMemoryPriceGateway({(REGION, "ml.g5.8xlarge"): 3.06, (REGION, "ml.g6.4xlarge"): 1.65})


def service(clock: FakeClock, hyperpod: InMemoryHyperPodGateway, prices: InMemoryPriceGateway) -> CostService:
    registry = InMemoryClusterRegistry(cluster_record("eks", "hyperpod", at=clock.now()))
    return CostService(registry, lambda region: hyperpod, prices, clock)


def test_on_demand_groups_are_priced_by_running_instance_hours(clock, hyperpod, prices) -> None:
    view = service(clock, hyperpod, prices).view("demo")

    workers = next(cost for cost in view.groups if cost.instanceGroupName == "workers")
    assert (workers.capacity, workers.runningInstances, workers.instanceHours) == ("on-demand", 2, 6.0)
    assert (workers.onDemandHourlyPrice, workers.onDemandCost) == (3.06, 18.36)
    assert view.onDemandCost == 18.36


def test_spot_and_training_plan_capacity_is_labelled_and_never_priced(clock, hyperpod, prices) -> None:
    view = service(clock, hyperpod, prices).view("demo")

    labelled = {cost.instanceGroupName: cost for cost in view.groups if cost.capacity != "on-demand"}
    assert {name: cost.capacity for name, cost in labelled.items()} == {"cheap": "spot", "reserved": "training-plan"}
    assert all(cost.onDemandCost is None and cost.onDemandHourlyPrice is None for cost in labelled.values())
    assert all(cost.note for cost in labelled.values())
    assert prices.lookups == [(REGION, "ml.g5.8xlarge")]


def test_a_type_without_a_listed_price_says_so(clock, hyperpod) -> None:
    view = service(clock, hyperpod, InMemoryPriceGateway()).view("demo")

    workers = next(cost for cost in view.groups if cost.instanceGroupName == "workers")
    assert workers.onDemandCost is None
    assert workers.note == "No on-demand price listed for this type."


def test_a_cluster_without_hyperpod_has_no_groups(clock, prices) -> None:
    view = service(clock, InMemoryHyperPodGateway(), prices).view("demo")

    assert (view.groups, view.onDemandCost) == ([], 0.0)


def test_unknown_cluster_is_not_found(clock, hyperpod, prices) -> None:
    with pytest.raises(ClusterNotFoundError):
        service(clock, hyperpod, prices).view("nope")
