"""Kueue's quota arithmetic, as its flavor assigner does it: whether a workload's pod sets fit a ClusterQueue's
flavors (its nominal quota, what it may borrow from its cohort), and the message Kueue writes when they do not.

Pure functions over plain objects: the controller (`kueue.py`) reads the cluster and writes the answers. Simplified:
one resource group per ClusterQueue, no preemption, no fair-sharing order, no topology-aware scheduling.
Messages follow Kueue v0.19's flavor assigner (kubernetes-sigs/kueue pkg/scheduler/flavorassigner):
"couldn't assign flavors to pod set <name>: insufficient unused quota for <resource> in flavor <flavor>, <n> more
needed", "… insufficient quota for <resource> in flavor <flavor>, request > maximum capacity (<n> > <max>)",
"… resource <resource> unavailable in ClusterQueue", "… flavor <flavor> doesn't match node affinity".
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

JsonObject = dict[str, Any]
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
# Usage: flavor → resource → amount (cores for cpu, bytes for memory, units for the rest).
Usage = dict[str, dict[str, float]]
_SUFFIXES = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
_QUANTITY = re.compile(r"^([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$")


def quantity(value: Any) -> float:
    """A Kubernetes quantity ("500m", "64Gi", 8) as a number."""
    match = _QUANTITY.match(str(value))
    if match is None:
        raise ValueError(f"not a quantity: {value!r}")
    return float(match.group(1)) * _SUFFIXES.get(match.group(2) or "", 1)


def formatted(resource: str, amount: float) -> str:
    """An amount as Kueue's status shows it: memory in Gi, cpu in millicores when fractional, else a whole number."""
    if resource == "memory":
        return f"{amount / 2**30:g}Gi"
    if amount != int(amount):
        return f"{round(amount * 1000)}m"
    return str(int(amount))


@dataclass(frozen=True)
class ResourceQuota:
    nominal: float
    borrowing_limit: float | None = None  # None: may borrow all the cohort lends
    lending_limit: float | None = None  # None: lends all its idle nominal quota

    @property
    def lendable(self) -> float:
        return self.nominal if self.lending_limit is None else min(self.nominal, self.lending_limit)


@dataclass
class Queue:
    """A ClusterQueue as the assigner sees it: flavors in order, each with its resources' quotas."""

    name: str
    cohort: str | None
    flavors: dict[str, dict[str, ResourceQuota]]
    held: bool = False  # spec.stopPolicy Hold or HoldAndDrain: admits nothing
    usage: Usage = field(default_factory=lambda: defaultdict(lambda: defaultdict(float)))

    @classmethod
    def of(cls, obj: JsonObject) -> Queue:
        spec = obj.get("spec") or {}
        flavors: dict[str, dict[str, ResourceQuota]] = {}
        for group in spec.get("resourceGroups") or []:
            for flavor in group.get("flavors") or []:
                flavors[flavor["name"]] = {
                    resource["name"]: ResourceQuota(
                        quantity(resource.get("nominalQuota", 0)),
                        _optional(resource.get("borrowingLimit")),
                        _optional(resource.get("lendingLimit")),
                    )
                    for resource in flavor.get("resources") or []
                }
        held = spec.get("stopPolicy", "None") != "None"
        return cls(obj["metadata"]["name"], spec.get("cohort") or None, flavors, held)

    def covers(self, resource: str) -> bool:
        return any(resource in resources for resources in self.flavors.values())


@dataclass(frozen=True)
class PodSet:
    name: str
    count: int
    requests: dict[str, float]  # per pod
    node_selector: dict[str, str]

    @classmethod
    def of(cls, pod_set: JsonObject) -> PodSet:
        spec = (pod_set.get("template") or {}).get("spec") or {}
        requests: dict[str, float] = defaultdict(float)
        for container in spec.get("containers") or []:
            resources = container.get("resources") or {}
            # A container's requests default to its limits (the API server's defaulting).
            for name, value in {**(resources.get("limits") or {}), **(resources.get("requests") or {})}.items():
                requests[name] += quantity(value)
        return cls(pod_set["name"], int(pod_set.get("count", 1)), dict(requests), spec.get("nodeSelector") or {})

    def total(self) -> dict[str, float]:
        return {name: amount * self.count for name, amount in self.requests.items() if amount}


def assign(
    queue: Queue, members: list[Queue], pod_sets: list[PodSet], flavor_labels: dict[str, dict[str, str]]
) -> tuple[dict[str, str] | None, str]:
    """Each pod set's flavor (pod set → flavor) when all fit the queue now, else None and why (Kueue's message)."""
    if queue.held:
        return None, f"ClusterQueue {queue.name} is inactive"
    chosen: dict[str, str] = {}
    extra: Usage = defaultdict(lambda: defaultdict(float))
    for pod_set in pod_sets:
        need = pod_set.total()
        missing = next((resource for resource in need if not queue.covers(resource)), None)
        if missing is not None:
            return (
                None,
                f"couldn't assign flavors to pod set {pod_set.name}: resource {missing} unavailable in ClusterQueue",
            )
        reasons = []
        for flavor, quotas in queue.flavors.items():
            labels = flavor_labels.get(flavor, {})
            if any(labels.get(key, value) != value for key, value in pod_set.node_selector.items()):
                reasons.append(f"flavor {flavor} doesn't match node affinity")
                continue
            reason = _misfit(queue, members, flavor, quotas, need, extra[flavor])
            if reason is None:
                chosen[pod_set.name] = flavor
                for resource, amount in need.items():
                    extra[flavor][resource] += amount
                break
            reasons.append(reason)
        else:
            return None, f"couldn't assign flavors to pod set {pod_set.name}: {', '.join(reasons)}"
    return chosen, f"Quota reserved in ClusterQueue {queue.name}"


def _misfit(
    queue: Queue,
    members: list[Queue],
    flavor: str,
    quotas: dict[str, ResourceQuota],
    need: dict[str, float],
    pending: dict[str, float],
) -> str | None:
    """Why `need` does not fit the queue's `flavor` now (None: it fits); `pending` is what earlier pod sets took."""
    cohort = [m for m in members if m.cohort == queue.cohort and m is not queue] if queue.cohort else []
    for resource, amount in need.items():
        quota = quotas.get(resource, ResourceQuota(0, 0, 0))
        others = [(q, m.usage[flavor][resource]) for m in cohort if (q := m.flavors.get(flavor, {}).get(resource))]
        lent = sum(q.lendable for q, _ in others)
        borrowable = lent if quota.borrowing_limit is None else min(lent, quota.borrowing_limit)
        maximum = quota.nominal + borrowable
        if amount > maximum:
            return (
                f"insufficient quota for {resource} in flavor {flavor}, request > maximum capacity "
                f"({formatted(resource, amount)} > {formatted(resource, maximum)})"
            )
        used = queue.usage[flavor][resource] + pending.get(resource, 0.0)
        # The cohort's pool is what each queue lends; a queue's use beyond what it keeps for itself draws on it.
        members_usage = [(quota, used), *others]
        pool_free = sum(q.lendable - max(0.0, u - (q.nominal - q.lendable)) for q, u in members_usage)
        own_free = max(0.0, quota.nominal - quota.lendable - used)
        available = min(own_free + pool_free, maximum - used)
        if amount > available:
            return (
                f"insufficient unused quota for {resource} in flavor {flavor}, "
                f"{formatted(resource, amount - max(available, 0.0))} more needed"
            )
    return None


def _optional(value: Any) -> float | None:
    return None if value is None else quantity(value)
