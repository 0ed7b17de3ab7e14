"""What a change to instance groups may be: the rules checked before anything starts, and the explicit diff.

Each rule reads the live cluster or group (port entities) and the request, never a gateway, and refuses with a
message that says what to change. Not here: a new group's plan against the account's offerings (stage-4 planning)
and the request models' own field checks (capacity type vs training plan, min ≤ count, taints vs deep health checks
on a new group: `models.hyperpod`).
"""

from __future__ import annotations

from typing import Any

from controlplane.core.hyperpod.conversions import model_taints
from controlplane.core.ports.hyperpod import HyperPodCluster, InstanceGroup
from controlplane.models.clusters import ClusterRecord, StageName
from controlplane.models.errors import ClusterExistsError, ForeignResourceError, InvalidRequestError, NotFoundError
from controlplane.models.instance_groups import FieldOutcome
from controlplane.models.instance_types import instance_type

# Fields UpdateInstanceGroupRequest accepts only when they equal the live value.
IMMUTABLE_FIELDS = ("instanceType", "networkInterface")


class InstanceGroupNotFoundError(NotFoundError):
    code = "InstanceGroupNotFound"


def require_group(cluster: HyperPodCluster, name: str) -> InstanceGroup:
    group = cluster.group(name)
    if group is None:
        names = [group.name for group in cluster.groups]
        raise InstanceGroupNotFoundError(
            f"Instance group {name} is not in {cluster.name}; its groups are: {', '.join(names) or 'none'}.",
            {"instanceGroups": names},
        )
    return group


def refuse_existing_group(cluster: HyperPodCluster, name: str) -> None:
    if cluster.group(name) is not None:
        raise ClusterExistsError(
            f"Instance group {name} already exists in {cluster.name}; pick another name or change the existing group "
            "with PATCH.",
            {"instanceGroupName": name},
        )


def refuse_adopted_hyperpod(record: ClusterRecord) -> None:
    """An imported HyperPod cluster stays its owner's: the control plane reads it but changes only what it made."""
    if StageName.HYPERPOD.value in record.adopted:
        raise ForeignResourceError(
            f"HyperPod cluster {record.hyperPodClusterName} was adopted by import, not created by InstantStart, so "
            "the control plane does not change its instance groups or nodes. Make the change with SageMaker "
            "directly; the views here show the result.",
            {"adopted": record.adopted},
        )


def supports_deep_health_checks(type_name: str | None) -> bool:
    known = instance_type(type_name or "")
    return known is not None and known.deep_health_checks


def changeable_fields(group: InstanceGroup) -> dict[str, Any]:
    """A group's live values under the names UpdateInstanceGroupRequest uses, for the explicit diff."""
    return {
        "instanceCount": group.target_count,
        "minInstanceCount": group.min_count,
        "labels": group.labels,
        "taints": [taint.model_dump() for taint in model_taints(group.taints)],
        "deepHealthChecks": group.deep_health_checks,
        "instanceType": group.instance_type,
        "networkInterface": group.network_interface,
    }


def explicit_diff(group: InstanceGroup, sent: dict[str, Any]) -> dict[str, FieldOutcome]:
    """Per sent field (the request's fields as sent): unchanged when the live value already equals it, else
    updated. Refuses a change to an immutable field, a count below the minimum, custom taints together with deep
    health checks, and deep health checks on a type that has none."""
    live = changeable_fields(group)
    for field in IMMUTABLE_FIELDS:
        if field in sent and sent[field] != live[field]:
            raise InvalidRequestError(
                f"{field} of instance group {group.name} is immutable ({live[field]}); add a new group with "
                f"{field} {sent[field]} and delete this one instead.",
                {field: live[field]},
            )
    minimum = sent.get("minInstanceCount", group.min_count) or 0
    count = sent.get("instanceCount", group.target_count)
    if count < minimum:
        raise InvalidRequestError(
            f"Instance group {group.name} needs at least {minimum} instances (minInstanceCount); scale to {minimum} "
            "or more, or lower minInstanceCount in the same request.",
            {"minInstanceCount": minimum},
        )
    taints = sent.get("taints", live["taints"])
    checks = sent.get("deepHealthChecks", group.deep_health_checks)
    if taints and checks:
        raise InvalidRequestError(
            f"Instance group {group.name} would have custom taints and deep health checks; HyperPod allows only one. "
            "Send deepHealthChecks false or drop the taints."
        )
    if checks and not group.deep_health_checks and not supports_deep_health_checks(group.instance_type):
        raise InvalidRequestError(f"{group.instance_type} does not support deep health checks.")
    return {field: "unchanged" if live[field] == value else "updated" for field, value in sent.items()}
