"""The Advanced Features panel as callers see it: live state, and the explicit-diff update.

A PATCH names only the features to change. Each touched feature is compared with its live state: equal
means `unchanged` and nothing happens; otherwise it becomes one stage of a single
`update_cluster_features` operation (the cluster runs one operation at a time, so one request that
changes two features is one operation with two stages). Dependencies are the backend's to enforce and
are never resolved by hidden intent: enabling a feature whose dependency is neither enabled nor enabled
in the same request is refused, naming the dependency; disabling a feature another enabled feature
needs is refused, naming the dependent. Not here: how each feature is built (`core.feature_steps`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controlplane.core.auth import Actor
from controlplane.core.feature_steps import ClusterFacts, FeatureSteps, require_karpenter_ready
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.persistence import ClusterRegistry
from controlplane.models.clusters import ClusterRecord, ClusterStatus, PlannedAction, StageName
from controlplane.models.errors import (
    ClusterNotFoundError,
    ClusterNotReadyError,
    FeatureDependencyError,
    InvalidRequestError,
)
from controlplane.models.features import (
    Feature,
    FeatureChange,
    FeatureChanges,
    FeatureOutcome,
    FeatureState,
    FeaturesUpdate,
    FeaturesView,
    KarpenterFeature,
    Outcome,
    TieredStorageFeature,
    ToggleFeature,
    UpdateFeaturesRequest,
)
from controlplane.models.operations import Operation, OperationKind, OperationView


@dataclass(frozen=True)
class FeatureSpec:
    feature: Feature
    summary: str
    requires: tuple[Feature, ...] = ()
    needs_hyperpod: bool = False


# In dependency order: enabling runs in this order, disabling in reverse.
CATALOG: dict[Feature, FeatureSpec] = {
    spec.feature: spec
    for spec in (
        FeatureSpec(Feature.CERT_MANAGER, "EKS add-on cert-manager"),
        FeatureSpec(
            Feature.FSX_CSI_DRIVER,
            "IAM role (web identity, kube-system/fsx-csi-controller-sa) and EKS add-on aws-fsx-csi-driver",
        ),
        FeatureSpec(
            Feature.KUBERAY_OPERATOR,
            "KubeRay operator: namespace kuberay-operator, ray.io CRDs, RBAC and the operator Deployment",
        ),
        FeatureSpec(
            Feature.TIERED_STORAGE,
            "TieredStorageConfig on the HyperPod cluster; OIDC provider, IAM policy and role (web identity), "
            "ServiceAccount default/tiered-storage-sa annotated with the role",
            needs_hyperpod=True,
        ),
        FeatureSpec(
            Feature.TRAINING_OPERATOR,
            "EKS add-on amazon-sagemaker-hyperpod-training-operator (pod identity from the HyperPod stage)",
            requires=(Feature.CERT_MANAGER,),
            needs_hyperpod=True,
        ),
        FeatureSpec(
            Feature.OBSERVABILITY,
            "IAM role (pod identity) and EKS add-on amazon-sagemaker-hyperpod-observability with its association",
            needs_hyperpod=True,
        ),
        FeatureSpec(
            Feature.INFERENCE_OPERATOR,
            "IAM role (web identity, hyperpod-inference-system/hyperpod-inference-controller-manager), TLS "
            "certificate bucket hyperpod-tls-<tag>-…, EKS add-on amazon-sagemaker-hyperpod-inference configured "
            "with both",
            requires=(Feature.CERT_MANAGER, Feature.FSX_CSI_DRIVER),
            needs_hyperpod=True,
        ),
        FeatureSpec(
            Feature.KARPENTER,
            "IAM role trusted by HyperPod (BatchAdd/BatchDeleteClusterNodes on the cluster), AutoScaling Karpenter "
            "with that ClusterRole, HyperpodNodeClass and NodePool over the chosen instance groups",
            needs_hyperpod=True,
        ),
    )
}
ENABLE_ORDER = tuple(CATALOG)
DISABLE_ORDER = tuple(reversed(ENABLE_ORDER))
FeatureRequest = ToggleFeature | TieredStorageFeature | KarpenterFeature


@dataclass(frozen=True)
class FeaturePlan:
    changes: FeatureChanges
    outcomes: dict[Feature, FeatureOutcome]
    stages: list[str]
    actions: list[PlannedAction]


class FeaturePanelService:
    def __init__(
        self,
        registry: ClusterRegistry,
        account: AccountGateway,
        operations: OperationService,
        steps: Callable[[str], FeatureSteps],
    ) -> None:
        self._registry = registry
        self._account = account
        self._operations = operations
        self._steps = steps

    def view(self, cluster_tag: str) -> FeaturesView:
        record = self._record(cluster_tag)
        facts, live = self._live(record)
        return FeaturesView(
            clusterTag=cluster_tag,
            hasHyperPod=facts.hyperpod is not None,
            features={feature.value: self._annotated(feature, state, facts) for feature, state in live.items()},
        )

    def plan(self, cluster_tag: str, request: UpdateFeaturesRequest) -> FeaturePlan:
        """The diff against live state, checked against every dependency rule; no side effect."""
        return self._plan(self._ready(cluster_tag), request)

    def _plan(self, record: ClusterRecord, request: UpdateFeaturesRequest) -> FeaturePlan:
        cluster_tag = record.clusterTag
        facts, live = self._live(record)
        touched = request.touched()
        for feature in touched:
            if CATALOG[feature].needs_hyperpod and facts.hyperpod is None:
                raise ClusterNotReadyError(
                    f"{feature.value} needs the HyperPod cluster; create it first (POST /clusters/{cluster_tag}"
                    "/hyperpod), then change this feature.",
                    {"feature": feature.value},
                )
        karpenter = touched.get(Feature.KARPENTER)
        if isinstance(karpenter, KarpenterFeature) and karpenter.enabled:
            _check_karpenter(cluster_tag, karpenter, live[Feature.KARPENTER], facts)
        changes: dict[Feature, FeatureChange] = {}
        outcomes: dict[Feature, FeatureOutcome] = {}
        for feature, wanted in touched.items():
            change = _change(feature, wanted, live[feature])
            changes[feature] = change
            outcomes[feature] = FeatureOutcome(outcome=_outcome(change), stage=None)
        _check_dependencies(live, changes)
        stages = [f.value for f in DISABLE_ORDER if changes.get(f, _NONE).change == "disable"] + [
            f.value for f in ENABLE_ORDER if changes.get(f, _NONE).change in ("enable", "update")
        ]
        for feature, outcome in outcomes.items():
            if feature.value in stages:
                outcomes[feature] = outcome.model_copy(update={"stage": feature.value})
        actions = [
            PlannedAction(
                action="delete" if changes[Feature(stage)].change == "disable" else "create",
                resource=Feature(stage).value,
                name=CATALOG[Feature(stage)].summary,
                detail=_detail(changes[Feature(stage)]),
            )
            for stage in stages
        ]
        return FeaturePlan(
            changes=FeatureChanges(**{feature.value: change for feature, change in changes.items()}),
            outcomes=outcomes,
            stages=stages,
            actions=actions,
        )

    def dry_run(self, cluster_tag: str, request: UpdateFeaturesRequest) -> FeaturesUpdate:
        plan = self.plan(cluster_tag, request)
        return FeaturesUpdate(features=_by_name(plan.outcomes), dryRun=True, actions=plan.actions)

    def update(self, cluster_tag: str, request: UpdateFeaturesRequest, actor: Actor) -> FeaturesUpdate:
        """Start one operation for the changed features (none when every touched feature is unchanged)."""
        record = self._ready(cluster_tag)
        plan = self._plan(record, request)
        if not plan.stages:
            return FeaturesUpdate(features=_by_name(plan.outcomes))
        operation = self._start(record, plan, actor)
        return FeaturesUpdate(
            features=_by_name(plan.outcomes),
            actions=plan.actions,
            operationId=operation.operationId,
            status=operation.status.value,
            stages=[stage.name for stage in operation.stages],
            operation=OperationView.of(operation),
        )

    # --- internals ---------------------------------------------------------------------------

    def _start(self, record: ClusterRecord, plan: FeaturePlan, actor: Actor) -> Operation:
        return self._operations.start(
            record, actor, OperationKind.UPDATE_CLUSTER_FEATURES, stages=plan.stages, features=plan.changes
        )

    def _record(self, cluster_tag: str) -> ClusterRecord:
        record = self._registry.find(cluster_tag)
        if record is None:
            raise ClusterNotFoundError(
                f"Cluster '{cluster_tag}' is not registered; GET /clusters lists the clusters this control plane "
                "manages.",
            )
        return record

    def _ready(self, cluster_tag: str) -> ClusterRecord:
        record = self._record(cluster_tag)
        if StageName.DEPENDENCIES.value not in record.stagesDone or record.status != ClusterStatus.ACTIVE:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' has not finished the 'dependencies' stage that features build on "
                f"(status {record.status}, done: {', '.join(record.stagesDone) or 'nothing'}). Finish or resume it "
                "first.",
                {"needs": StageName.DEPENDENCIES.value, "stagesDone": record.stagesDone},
            )
        return record

    def _live(self, record: ClusterRecord) -> tuple[ClusterFacts, dict[Feature, FeatureState]]:
        steps = self._steps(record.region)
        facts = steps.facts(
            record.clusterTag,
            record.region,
            record.accountId or self._account.account_id(),
            record.eksClusterName,
            hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName),
        )
        return facts, steps.live(facts)

    @staticmethod
    def _annotated(feature: Feature, state: FeatureState, facts: ClusterFacts) -> FeatureState:
        spec = CATALOG[feature]
        return state.model_copy(
            update={
                "requires": [dependency.value for dependency in spec.requires],
                "available": not spec.needs_hyperpod or facts.hyperpod is not None,
            }
        )


_NONE = FeatureChange()


def _change(feature: Feature, wanted: FeatureRequest, live: FeatureState) -> FeatureChange:
    if not wanted.enabled:
        return FeatureChange(change="none" if live.state == "disabled" else "disable")
    if isinstance(wanted, TieredStorageFeature):
        current = live.settings.get("percentage")
        percentage = (
            None
            if wanted.configMode == "default"
            else wanted.percentage
            if wanted.percentage is not None
            else current
            if isinstance(current, int)
            else None
        )
        if live.state != "enabled":
            return FeatureChange(change="enable", percentage=percentage)
        return FeatureChange(change="none" if percentage == current else "update", percentage=percentage)
    if isinstance(wanted, KarpenterFeature):
        live_groups = live.settings.get("instanceGroups")
        current = live_groups if isinstance(live_groups, list) else None
        groups = wanted.instanceGroups or current
        if live.state != "enabled":
            return FeatureChange(change="enable", instanceGroups=groups)
        unchanged = sorted(groups or []) == sorted(current or [])
        return FeatureChange(change="none" if unchanged else "update", instanceGroups=groups)
    return FeatureChange(change="none" if live.state == "enabled" else "enable")


def _karpenter_unsupported(group: dict[str, object]) -> list[str]:
    """Managed Karpenter scales only on-demand groups without training plans or deep health checks (AWS docs)."""
    capacity = group.get("CapacityRequirements")
    reasons = {
        "uses a training plan": bool(group.get("TrainingPlanArn")),
        "runs deep health checks": bool(group.get("OnStartDeepHealthChecks")),
        "uses Spot capacity": isinstance(capacity, dict) and "Spot" in capacity,
    }
    return [reason for reason, applies in reasons.items() if applies]


def _check_karpenter(cluster_tag: str, wanted: KarpenterFeature, live: FeatureState, facts: ClusterFacts) -> None:
    """The chosen groups exist and can be autoscaled; the cluster provisions continuously and recovers nodes."""
    hyperpod = facts.hyperpod
    if hyperpod is None:
        return
    groups = {str(group.get("InstanceGroupName")): group for group in hyperpod.groups}
    names = ", ".join(sorted(groups)) or "none"
    chosen = wanted.instanceGroups
    if chosen is None and live.state != "enabled" and not live.settings.get("instanceGroups"):
        raise InvalidRequestError(
            f'karpenter needs the instance groups it may scale: add "instanceGroups": [...] (this cluster\'s groups: '
            f"{names}).",
            {"feature": Feature.KARPENTER.value, "instanceGroups": sorted(groups)},
        )
    unknown = [name for name in chosen or [] if name not in groups]
    if unknown:
        raise InvalidRequestError(
            f"karpenter: no instance group {', '.join(unknown)} in cluster '{cluster_tag}'; its groups are: {names}.",
            {"feature": Feature.KARPENTER.value, "unknown": unknown, "instanceGroups": sorted(groups)},
        )
    unsupported = [f"{name} ({reason})" for name in chosen or [] for reason in _karpenter_unsupported(groups[name])]
    if unsupported:
        raise InvalidRequestError(
            f"karpenter cannot scale {', '.join(unsupported)}: managed Karpenter scales only on-demand groups "
            "without training plans or deep health checks. Choose other groups.",
            {"feature": Feature.KARPENTER.value, "unsupported": unsupported},
        )
    require_karpenter_ready(hyperpod)


def _outcome(change: FeatureChange) -> Outcome:
    outcomes: dict[str, Outcome] = {
        "none": "unchanged",
        "enable": "enabled",
        "disable": "disabled",
        "update": "updated",
    }
    return outcomes[change.change]


def _check_dependencies(live: dict[Feature, FeatureState], changes: dict[Feature, FeatureChange]) -> None:
    """Refuse a request that would leave an enabled feature without one it needs."""

    def on_after(feature: Feature) -> bool:
        change = changes.get(feature, _NONE).change
        if change in ("enable", "update"):
            return True
        if change == "disable":
            return False
        return live[feature].state != "disabled"

    for feature, change in changes.items():
        if change.change in ("enable", "update"):
            missing = [dependency for dependency in CATALOG[feature].requires if not on_after(dependency)]
            if missing:
                names = ", ".join(dependency.value for dependency in missing)
                example = ", ".join(f'"{dependency.value}": {{"enabled": true}}' for dependency in missing)
                raise FeatureDependencyError(
                    f"{feature.value} needs {names}, which is not enabled. Enable it in the same request "
                    f"(add {example}) or first on its own.",
                    {"feature": feature.value, "missing": [dependency.value for dependency in missing]},
                )
        if change.change == "disable":
            dependents = [
                other
                for other, spec in CATALOG.items()
                if feature in spec.requires and other != feature and on_after(other)
            ]
            if dependents:
                names = ", ".join(dependent.value for dependent in dependents)
                raise FeatureDependencyError(
                    f"{feature.value} cannot be disabled: {names} needs it. Disable {names} first (or in the same "
                    "request), or keep it enabled.",
                    {"feature": feature.value, "dependents": [dependent.value for dependent in dependents]},
                )


def _detail(change: FeatureChange) -> str | None:
    if change.percentage is not None:
        return f"InstanceMemoryAllocationPercentage {change.percentage}"
    if change.instanceGroups:
        return f"instance groups {', '.join(change.instanceGroups)}"
    return None


def _by_name(outcomes: dict[Feature, FeatureOutcome]) -> dict[str, FeatureOutcome]:
    return {feature.value: outcome for feature, outcome in outcomes.items()}
