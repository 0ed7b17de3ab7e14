"""Operations stuck past their deadline: RUNNING longer than the longest their kind's waits may last together.

A kind's deadline is the sum of the waits its workflow can run (`core.deadlines`), sized to the instances it brings
up where it brings any; an operation past it has lost its workflow (or is about to fail) and is flagged with the
call that resumes it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from controlplane.core import deadlines
from controlplane.core.drift.recorded import GROUP_CREATING_KINDS, group_plan
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.models.drift import StuckOperation
from controlplane.models.features import Feature
from controlplane.models.operations import Operation, OperationKind, OperationStatus

# The fixed part of each kind's waits; kinds that bring instances up add `instances_in_service` of their plan.
FIXED_WAITS: dict[OperationKind, timedelta] = {
    OperationKind.CREATE_CLUSTER: deadlines.EKS_CLUSTER_ACTIVE
    + deadlines.ADDONS_ACTIVE
    + deadlines.ADDONS_HEALTHY
    + deadlines.FEATURE_SETTLED
    + deadlines.FSX_CREATION,
    OperationKind.CREATE_EKS_CLUSTER: deadlines.EKS_CLUSTER_ACTIVE,
    OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES: deadlines.ADDONS_ACTIVE,
    OperationKind.CREATE_HYPERPOD_CLUSTER: deadlines.ADDONS_HEALTHY,
    OperationKind.CONFIGURE_STORAGE: deadlines.FSX_CREATION + deadlines.FEATURE_SETTLED,
    OperationKind.DELETE_EKS_CLUSTER: deadlines.HYPERPOD_DELETED
    + deadlines.FSX_FILE_SYSTEMS_DELETED
    + deadlines.NAT_GATEWAY_RELEASED
    + deadlines.EKS_CLUSTER_DELETED,
    OperationKind.ADD_INSTANCE_GROUP: timedelta(0),
    OperationKind.UPDATE_INSTANCE_GROUP: deadlines.HYPERPOD_PROVISIONING + deadlines.DEEP_HEALTH_CHECKS,
    OperationKind.DELETE_INSTANCE_GROUP: deadlines.HYPERPOD_DELETED,
    OperationKind.UPDATE_CLUSTER_SOFTWARE: deadlines.LONGEST_WAIT,
    OperationKind.UPDATE_CLUSTER_FEATURES: deadlines.FEATURE_SETTLED * len(Feature),
    OperationKind.IMPORT_CLUSTER: deadlines.ADDONS_ACTIVE,
    OperationKind.RESTORE_CLUSTER_ACCESS: timedelta(0),
    OperationKind.REBOOT_NODES: deadlines.NODES_SETTLED,
    OperationKind.REPLACE_NODES: deadlines.NODES_SETTLED,
    OperationKind.DELETE_NODES: deadlines.NODES_SETTLED,
    OperationKind.DOWNLOAD_TO_STORAGE: deadlines.LONGEST_WAIT,
    OperationKind.PREPARE_TEAM_NAMESPACE: deadlines.TEAM_NAMESPACE_CREATED + deadlines.TEAM_NAMESPACE_READY,
    OperationKind.REMOVE_TEAM_NAMESPACE: timedelta(0),
}


def deadline(operation: Operation) -> timedelta:
    """The longest the operation may run: its kind's fixed waits and the instances it brings up."""
    waits = FIXED_WAITS[operation.kind]
    if operation.kind in GROUP_CREATING_KINDS:
        plan = group_plan(operation)
        group = InstanceGroup(
            name=plan.instanceGroupName,
            instance_type=plan.instanceType,
            status=None,
            current_count=0,
            target_count=plan.instanceCount,
            deep_health_checks=plan.deepHealthChecks,
        )
        waits += deadlines.instances_in_service([group])
    return min(waits, deadlines.LONGEST_WAIT)


def stuck(operation: Operation, now: datetime) -> StuckOperation | None:
    """The operation, flagged, when it is RUNNING past its deadline."""
    if operation.status != OperationStatus.RUNNING:
        return None
    latest = operation.createdAt + deadline(operation)
    if now <= latest:
        return None
    return StuckOperation(
        operationId=operation.operationId,
        kind=operation.kind,
        destructive=operation.destructive,
        runningSince=operation.createdAt,
        deadline=latest,
        resume=f"POST /operations/{operation.operationId}/resume",
    )
