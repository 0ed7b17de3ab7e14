"""A team's guarantees against the cluster's capacity: its instance groups' counts per type, less what the other
teams' quotas guarantee."""

from __future__ import annotations

from collections import Counter

from controlplane.core.ports.governance import ComputeQuota
from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.models.errors import InvalidRequestError
from controlplane.models.governance import InstanceAllocation


class QuotaExceedsCapacityError(InvalidRequestError):
    code = "QuotaExceedsCapacity"


def capacity(cluster: HyperPodCluster) -> Counter[str]:
    counts: Counter[str] = Counter()
    for group in cluster.groups:
        if group.instance_type:
            counts[group.instance_type] += group.target_count
    return counts


def allocated(quotas: list[ComputeQuota]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for quota in quotas:
        for allocation in quota.spec.allocations:
            counts[allocation.instance_type] += allocation.count
    return counts


def refuse_over_capacity(
    cluster_tag: str, allocations: list[InstanceAllocation], capacity: Counter[str], allocated: Counter[str]
) -> None:
    """Pre-flight: each type is the cluster's, and every team's guarantees together fit its capacity."""
    for allocation in allocations:
        have = capacity[allocation.instanceType] - allocated[allocation.instanceType]
        if allocation.instanceType not in capacity:
            raise QuotaExceedsCapacityError(
                f"Cluster '{cluster_tag}' has no {allocation.instanceType} instances; allocate one of its types: "
                f"{', '.join(sorted(capacity)) or 'none'}.",
                {"capacity": dict(capacity)},
            )
        if allocation.count > have:
            raise QuotaExceedsCapacityError(
                f"{allocation.count} × {allocation.instanceType} exceeds what is left of '{cluster_tag}''s capacity: "
                f"{capacity[allocation.instanceType]} in its instance groups, {allocated[allocation.instanceType]} "
                f"already guaranteed to other teams, so at most {max(have, 0)}. Lower the count, or scale an instance "
                "group first.",
                {"instanceType": allocation.instanceType, "have": max(have, 0), "need": allocation.count},
            )
