"""Running instance-hours per group from the nodes' launch times, with the on-demand price of on-demand groups."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from controlplane.core.concurrency import each
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.paging import Page
from controlplane.core.ports.hyperpod import HyperPodGateway, HyperPodNode, InstanceGroup
from controlplane.core.ports.persistence import Clock, ClusterRegistry
from controlplane.core.ports.pricing import PriceGateway
from controlplane.models.drift import CapacityKind, CostView, GroupCost
from controlplane.models.errors import ClusterNotFoundError

NODES_PAGE = 100
RUNNING = "Running"
SECONDS_PER_HOUR = 3600
NOTES: dict[CapacityKind, str] = {
    "spot": "Spot capacity: billed at the Spot rate, not priced here.",
    "training-plan": "Training-plan capacity: paid for with the plan, not priced here.",
}


class CostService:
    def __init__(
        self,
        registry: ClusterRegistry,
        hyperpod: Callable[[str], HyperPodGateway],
        prices: PriceGateway,
        clock: Clock,
    ) -> None:
        self._registry = registry
        self._hyperpod = hyperpod
        self._prices = prices
        self._clock = clock

    def view(self, cluster_tag: str) -> CostView:
        record = self._registry.find(cluster_tag)
        if record is None:
            raise ClusterNotFoundError(f"No cluster '{cluster_tag}' is registered; list them with GET /clusters.")
        now = self._clock.now()
        gateway = self._hyperpod(record.region)
        name = hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)
        cluster = gateway.find_cluster(name)
        groups = cluster.groups if cluster is not None else ()
        nodes = _running_nodes(gateway, name) if groups else []
        costs = each(lambda group: self._group_cost(record.region, group, nodes, now), list(groups))
        total = sum(cost.onDemandCost or 0.0 for cost in costs)
        return CostView(
            clusterTag=cluster_tag, region=record.region, at=now, groups=costs, onDemandCost=round(total, 2)
        )

    def _group_cost(self, region: str, group: InstanceGroup, nodes: list[HyperPodNode], now: datetime) -> GroupCost:
        mine = [node for node in nodes if node.group == group.name]
        hours = sum((now - node.launch_time).total_seconds() for node in mine if node.launch_time) / SECONDS_PER_HOUR
        capacity = capacity_kind(group)
        price = (
            self._prices.on_demand_hourly(region, group.instance_type)
            if capacity == "on-demand" and group.instance_type
            else None
        )
        note = NOTES.get(capacity) or (None if price is not None else "No on-demand price listed for this type.")
        return GroupCost(
            instanceGroupName=group.name,
            instanceType=group.instance_type,
            capacity=capacity,
            runningInstances=len(mine),
            instanceHours=round(hours, 2),
            onDemandHourlyPrice=price,
            onDemandCost=round(hours * price, 2) if price is not None else None,
            note=note,
        )


def capacity_kind(group: InstanceGroup) -> CapacityKind:
    """A training plan's capacity is the plan's whatever the group's capacity type says."""
    if group.training_plan_arn is not None or group.capacity_type == "training-plan":
        return "training-plan"
    return "spot" if group.capacity_type == "spot" else "on-demand"


def _running_nodes(gateway: HyperPodGateway, cluster_name: str) -> list[HyperPodNode]:
    nodes: list[HyperPodNode] = []
    token: str | None = None
    while True:
        page: Page[HyperPodNode] = gateway.node_page(cluster_name, NODES_PAGE, token)
        nodes.extend(node for node in page.items if node.status == RUNNING)
        token = page.next_token
        if token is None:
            return nodes
