"""The Advanced Features panel as callers see it (`FeaturePanelService`): live state, the plan of a PATCH, and
the update that starts it.

A PATCH names only the features to change. Each touched feature is compared with its live state (`diff`): equal
means `unchanged` and nothing happens; otherwise it becomes one stage of a single `update_cluster_features`
operation (the cluster runs one operation at a time, so one request that changes two features is one operation
with two stages), once the request passes the rules (`rules`, and Karpenter's own checks). A disable deletes what
the feature created: a request that disables anything is planned first and starts only with the plan's
confirmation token. Not here: how each feature is built (one module per feature, run by `core.features.steps`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations, fingerprint
from controlplane.core.features.catalog import CATALOG
from controlplane.core.features.catalog.karpenter import check_karpenter_request
from controlplane.core.features.diff import change_of, detail_of, outcome_of, stages_of
from controlplane.core.features.facts import ClusterFacts
from controlplane.core.features.rules import check_dependencies, require_hyperpod
from controlplane.core.features.steps import FeatureSteps
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.persistence import ClusterRegistry
from controlplane.models.clusters import ClusterRecord, ClusterStatus, Plan, PlannedAction, StageName
from controlplane.models.errors import ClusterNotFoundError, ClusterNotReadyError
from controlplane.models.features import (
    Feature,
    FeatureChange,
    FeatureChanges,
    FeatureOutcome,
    FeatureState,
    FeaturesUpdate,
    FeaturesView,
    KarpenterFeature,
    UpdateFeaturesRequest,
)
from controlplane.models.operations import Operation, OperationKind, OperationView
from controlplane.models.workflow import UpdateClusterFeaturesInput

DISABLE_ACTION = "disable-features"


@dataclass(frozen=True)
class FeaturePlan:
    changes: FeatureChanges
    outcomes: dict[Feature, FeatureOutcome]
    stages: list[str]
    actions: list[PlannedAction]

    @property
    def disables(self) -> bool:
        return any(outcome.outcome == "disabled" for outcome in self.outcomes.values())

    @property
    def state(self) -> str:
        """What a confirmation token for this plan is bound to: the changes and the actions they take."""
        return fingerprint([self.changes, *self.actions])


class FeaturePanelService:
    def __init__(
        self,
        registry: ClusterRegistry,
        account: AccountGateway,
        operations: OperationService,
        confirmations: Confirmations,
        steps: Callable[[str], FeatureSteps],
    ) -> None:
        self._registry = registry
        self._account = account
        self._operations = operations
        self._confirmations = confirmations
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
        """The diff against live state, checked against every rule; no side effect."""
        return self._plan(self._ready(cluster_tag), request)

    def _plan(self, record: ClusterRecord, request: UpdateFeaturesRequest) -> FeaturePlan:
        cluster_tag = record.clusterTag
        facts, live = self._live(record)
        touched = request.touched()
        require_hyperpod(cluster_tag, touched, facts.hyperpod is not None)
        karpenter = touched.get(Feature.KARPENTER)
        if isinstance(karpenter, KarpenterFeature) and karpenter.enabled:
            check_karpenter_request(cluster_tag, karpenter, live[Feature.KARPENTER], facts.hyperpod)
        changes: dict[Feature, FeatureChange] = {
            feature: change_of(wanted, live[feature]) for feature, wanted in touched.items()
        }
        check_dependencies(live, changes)
        stages = stages_of(changes)
        outcomes = {
            feature: FeatureOutcome(outcome=outcome_of(change), stage=feature.value if feature in stages else None)
            for feature, change in changes.items()
        }
        actions = [action for feature in stages for action in _actions(feature, changes[feature])]
        return FeaturePlan(
            changes=FeatureChanges(changes),
            outcomes=outcomes,
            stages=[feature.value for feature in stages],
            actions=actions,
        )

    def dry_run(self, cluster_tag: str, request: UpdateFeaturesRequest, actor: Actor) -> FeaturesUpdate:
        """The plan; one that disables anything comes with its confirmation token."""
        plan = self.plan(cluster_tag, request)
        if plan.disables:
            return self._confirmation_asked(cluster_tag, plan, actor)
        return FeaturesUpdate(features=_by_name(plan.outcomes), dryRun=True, actions=plan.actions)

    def update(
        self, cluster_tag: str, request: UpdateFeaturesRequest, token: str | None, actor: Actor
    ) -> FeaturesUpdate:
        """Start one operation for the changed features (none when every touched feature is unchanged). A request
        that disables anything starts only with the token of its plan; without one, it answers with the plan."""
        record = self._ready(cluster_tag)
        plan = self._plan(record, request)
        if not plan.stages:
            return FeaturesUpdate(features=_by_name(plan.outcomes))
        if plan.disables and not token:
            return self._confirmation_asked(cluster_tag, plan, actor)
        confirmed = (
            self._confirmations.redeeming(
                token or "",
                actor,
                DISABLE_ACTION,
                cluster_tag,
                f"Send the same PATCH /clusters/{cluster_tag}/features without a token",
                plan.state,
            )
            if plan.disables
            else nullcontext()
        )
        with confirmed:
            operation = self._start(record, plan, actor)
        return FeaturesUpdate(
            features=_by_name(plan.outcomes),
            actions=plan.actions,
            operationId=operation.operationId,
            status=operation.status.value,
            stages=[stage.name for stage in operation.stages],
            operation=OperationView.of(operation),
        )

    def _confirmation_asked(self, cluster_tag: str, plan: FeaturePlan, actor: Actor) -> FeaturesUpdate:
        token, expires_at = self._confirmations.issue(actor, DISABLE_ACTION, cluster_tag, plan.state)
        disabled = [name for name, outcome in _by_name(plan.outcomes).items() if outcome.outcome == "disabled"]
        return FeaturesUpdate(
            features=_by_name(plan.outcomes),
            dryRun=True,
            actions=plan.actions,
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Disabling {', '.join(disabled)} deletes what enabling created (see actions; what is kept says "
            "so). Ask the person to confirm, then repeat the request with confirmationToken.",
        )

    def _start(self, record: ClusterRecord, plan: FeaturePlan, actor: Actor) -> Operation:
        return self._operations.start(
            record,
            actor,
            OperationKind.UPDATE_CLUSTER_FEATURES,
            stages=plan.stages,
            destructive=plan.disables,
            features=plan.changes,
        )

    resumes = frozenset({OperationKind.UPDATE_CLUSTER_FEATURES})

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """Before a resume: the cluster has finished the stage features build on; the plan lists what each change of
        the operation does (a disable: what it deletes, and what it keeps)."""
        self._ready(record.clusterTag)
        changes = UpdateClusterFeaturesInput.model_validate(operation.input).features
        by_feature = {feature: changes.of(feature) for feature in Feature}
        return Plan(
            actions=[action for feature in stages_of(by_feature) for action in _actions(feature, by_feature[feature])]
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


def _actions(feature: Feature, change: FeatureChange) -> list[PlannedAction]:
    """What a feature's stage does; a disable also says what it keeps, and why."""
    spec = CATALOG[feature]
    disable = change.change == "disable"
    done = PlannedAction(
        action="delete" if disable else "create", resource=feature.value, name=spec.summary, detail=detail_of(change)
    )
    kept = [
        PlannedAction(action="keep", resource=feature.value, name=item.resource, detail=item.reason)
        for item in spec.kept
    ]
    return [done, *kept] if disable else [done]


def _by_name(outcomes: dict[Feature, FeatureOutcome]) -> dict[str, FeatureOutcome]:
    return {feature.value: outcome for feature, outcome in outcomes.items()}
