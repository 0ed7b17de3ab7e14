"""The desired state a cluster's succeeded operations recorded, replayed oldest first.

Instance groups come from the plans that created them and the changes that followed (a node deletion shrinks
its group); features from the feature changes; the dependencies stage's add-ons from the stage having run.
Adopted groups and features no operation touched are not recorded, so they are never drift.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from controlplane.models.features import Feature, FeatureChanges
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.instance_groups import InstanceGroupChange
from controlplane.models.nodes import NodeTarget
from controlplane.models.operations import Operation, OperationKind, OperationStatus

# Kinds whose input carries a group plan (`hyperpod`): the group they create.
GROUP_CREATING_KINDS = frozenset(
    {OperationKind.CREATE_CLUSTER, OperationKind.CREATE_HYPERPOD_CLUSTER, OperationKind.ADD_INSTANCE_GROUP}
)
DEPENDENCY_KINDS = {OperationKind.CREATE_CLUSTER, OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES}


@dataclass(frozen=True)
class RecordedGroup:
    """The managed fields of one instance group as the control plane last set them."""

    name: str
    instance_type: str
    instance_count: int
    capacity_type: str
    training_plan_arn: str | None
    deep_health_checks: bool
    threads_per_core: int
    ebs_volume_gb: int
    min_count: int | None
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class RecordedState:
    groups: dict[str, RecordedGroup] = field(default_factory=dict)
    features: dict[Feature, bool] = field(default_factory=dict)
    # Groups whose count Karpenter changes (their instanceCount is Karpenter's, not the control plane's).
    autoscaled_groups: frozenset[str] = frozenset()
    dependencies_installed: bool = False

    def enabled_features(self) -> list[Feature]:
        return [feature for feature, enabled in self.features.items() if enabled]


def recorded_state(operations: Iterable[Operation]) -> RecordedState:
    """Replay the succeeded operations (any order given; applied oldest first)."""
    state = RecordedState()
    done = sorted(
        (op for op in operations if op.status == OperationStatus.SUCCEEDED),
        key=lambda op: (op.createdAt, op.operationId),
    )
    for operation in done:
        _apply(state, operation)
    return state


def group_plan(operation: Operation) -> HyperPodPlan:
    """The group an operation of a group-creating kind creates, from its workflow input."""
    return HyperPodPlan.model_validate(operation.input["hyperpod"])


def _apply(state: RecordedState, operation: Operation) -> None:
    kind = operation.kind
    if kind in DEPENDENCY_KINDS:
        state.dependencies_installed = True
    if kind in GROUP_CREATING_KINDS:
        plan = group_plan(operation)
        state.groups[plan.instanceGroupName] = RecordedGroup(
            name=plan.instanceGroupName,
            instance_type=plan.instanceType,
            instance_count=plan.instanceCount,
            capacity_type=plan.capacityType,
            training_plan_arn=plan.trainingPlanArn,
            deep_health_checks=plan.deepHealthChecks,
            threads_per_core=plan.threadsPerCore,
            ebs_volume_gb=plan.ebsVolumeSizeGb,
            min_count=plan.minInstanceCount,
            labels=dict(plan.labels),
        )
    elif kind == OperationKind.UPDATE_INSTANCE_GROUP:
        change = InstanceGroupChange.model_validate(operation.input["instanceGroup"])
        group = state.groups.get(change.instanceGroupName)
        if group is not None:
            state.groups[group.name] = replace(
                group,
                instance_count=group.instance_count if change.instanceCount is None else change.instanceCount,
                min_count=group.min_count if change.minInstanceCount is None else change.minInstanceCount,
                labels=group.labels if change.labels is None else dict(change.labels),
                deep_health_checks=(
                    group.deep_health_checks if change.deepHealthChecks is None else change.deepHealthChecks
                ),
            )
    elif kind == OperationKind.DELETE_INSTANCE_GROUP:
        state.groups.pop(InstanceGroupChange.model_validate(operation.input["instanceGroup"]).instanceGroupName, None)
    elif kind == OperationKind.DELETE_NODES:
        for target in (NodeTarget.model_validate(node) for node in operation.input.get("nodes", [])):
            group = state.groups.get(target.instanceGroup)
            if group is not None:
                state.groups[group.name] = replace(group, instance_count=max(0, group.instance_count - 1))
    if kind in (OperationKind.CREATE_CLUSTER, OperationKind.UPDATE_CLUSTER_FEATURES, OperationKind.CONFIGURE_STORAGE):
        _apply_features(state, FeatureChanges.model_validate(operation.input.get("features") or {}))


def _apply_features(state: RecordedState, changes: FeatureChanges) -> None:
    for feature in Feature:
        change = changes.of(feature)
        if change.change in ("enable", "update"):
            state.features[feature] = True
            if feature == Feature.KARPENTER and change.instanceGroups is not None:
                state.autoscaled_groups = frozenset(change.instanceGroups)
        elif change.change == "disable":
            state.features[feature] = False
            if feature == Feature.KARPENTER:
                state.autoscaled_groups = frozenset()
