"""Recorded against live, one finding per managed field.

`group_findings` compares the recorded instance groups with one DescribeCluster answer. Everything else is a
`Check`: a field path, the recorded value and a read of the live value, so that the service runs the reads
together and `findings` keeps those that differ. Fields the control plane does not set (a group's status and
current count, labels it did not put, groups and add-ons it did not create) are never checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from controlplane.core.drift.recorded import RecordedGroup
from controlplane.core.ports.hyperpod import HyperPodCluster, InstanceGroup
from controlplane.models.drift import DriftFinding, DriftValue

# Said of every group field: the control plane's own update brings it back.
GROUP_REMEDY = "PATCH the instance group to the value you want (the control plane then records it)"


@dataclass(frozen=True)
class Check:
    """One managed field: where it is, what was recorded, how to read it live, and how to bring it back."""

    path: str
    recorded: DriftValue
    read: Callable[[], DriftValue]
    remedy: str


def findings(checks: Iterable[Check], live_values: Iterable[DriftValue]) -> list[DriftFinding]:
    """The checks whose live value (in the same order) differs from the recorded one."""
    return [
        finding(check.path, check.recorded, live, check.remedy)
        for check, live in zip(checks, live_values, strict=True)
        if live != check.recorded
    ]


def finding(path: str, recorded: DriftValue, live: DriftValue, remedy: str) -> DriftFinding:
    shown = "missing" if live is None else repr(live)
    return DriftFinding(
        path=path,
        recorded=recorded,
        live=live,
        message=f"{path}: recorded {recorded!r}, live {shown}. {remedy}.",
    )


def group_findings(
    recorded: dict[str, RecordedGroup], live: HyperPodCluster | None, autoscaled: frozenset[str]
) -> list[DriftFinding]:
    """Each recorded group against the live one (a group Karpenter scales has no recorded count); a HyperPod cluster
    gone from under its recorded groups is one finding."""
    if not recorded:
        return []
    if live is None:
        remedy = "Delete the cluster through the API, or create its HyperPod cluster again (POST …/hyperpod)"
        return [finding("hyperPodCluster", "present", None, remedy)]
    found: list[DriftFinding] = []
    for name, group in sorted(recorded.items()):
        path = f"instanceGroups[{name}]"
        current = live.group(name)
        if current is None:
            found.append(finding(path, "present", None, "Add the group again, or delete it through the API"))
            continue
        for field, want, have in _managed_fields(group, current, counted=name not in autoscaled):
            if want != have:
                found.append(finding(f"{path}.{field}", want, have, GROUP_REMEDY))
    return found


def _managed_fields(
    group: RecordedGroup, live: InstanceGroup, counted: bool
) -> list[tuple[str, DriftValue, DriftValue]]:
    fields: list[tuple[str, DriftValue, DriftValue]] = [
        ("instanceType", group.instance_type, live.instance_type),
        ("capacityType", group.capacity_type, live.capacity_type),
        ("trainingPlanArn", group.training_plan_arn, live.training_plan_arn),
        ("deepHealthChecks", group.deep_health_checks, live.deep_health_checks),
        ("threadsPerCore", group.threads_per_core, live.threads_per_core),
        ("ebsVolumeSizeGb", group.ebs_volume_gb, live.ebs_volume_gb),
    ]
    if counted:
        fields.append(("instanceCount", group.instance_count, live.target_count))
        if group.min_count is not None:
            fields.append(("minInstanceCount", group.min_count, live.min_count))
    fields.extend((f"labels[{key}]", value, live.labels.get(key)) for key, value in sorted(group.labels.items()))
    return fields
