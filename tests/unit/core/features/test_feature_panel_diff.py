"""The features panel's explicit diff: per touched feature against live state; absent means unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.naming import feature_tags
from controlplane.models.errors import ClusterNotFoundError, ClusterNotReadyError, ConfirmationRequiredError
from controlplane.models.features import Feature, FeatureChange, UpdateFeaturesRequest
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.features.world import ADMIN, TAG, FeatureWorld, group


@pytest.fixture
def world() -> FeatureWorld:
    return FeatureWorld()


def patch(**features: Any) -> UpdateFeaturesRequest:
    return UpdateFeaturesRequest.model_validate(features)


def install_cert_manager(world: FeatureWorld) -> None:
    world.install_addon("cert-manager", tags=feature_tags(DEPLOYMENT, TAG, Feature.CERT_MANAGER))


def outcomes(update: Any) -> dict[str, str]:
    return {name: outcome.outcome for name, outcome in update.features.items()}


def test_enabling_a_disabled_feature_is_enabled_in_a_stage_of_its_own(world):
    plan = world.panel.plan(TAG, patch(certManager={"enabled": True}))
    assert plan.stages == ["certManager"]
    assert plan.outcomes[Feature.CERT_MANAGER].outcome == "enabled"
    assert plan.outcomes[Feature.CERT_MANAGER].stage == "certManager"
    assert plan.changes.of(Feature.CERT_MANAGER).change == "enable"
    assert [(a.action, a.resource) for a in plan.actions] == [("create", "certManager")]


def test_enabling_an_enabled_feature_is_unchanged_starts_nothing_and_names_no_operation(world):
    install_cert_manager(world)
    update = world.panel.update(TAG, patch(certManager={"enabled": True}), None, ADMIN)
    assert outcomes(update) == {"certManager": "unchanged"}
    assert update.features["certManager"].stage is None
    assert update.operationId is None and update.operation is None and update.status is None
    assert update.stages == [] and update.actions == []
    assert world.launcher.started == []
    assert world.registry.find(TAG).activeOperationId is None


def test_disabling_a_disabled_feature_is_unchanged(world):
    update = world.panel.update(TAG, patch(kuberayOperator={"enabled": False}), None, ADMIN)
    assert outcomes(update) == {"kuberayOperator": "unchanged"}
    assert world.launcher.started == []


def test_disabling_an_enabled_feature_is_disabled_and_plans_a_delete(world):
    install_cert_manager(world)
    plan = world.panel.plan(TAG, patch(certManager={"enabled": False}))
    assert plan.outcomes[Feature.CERT_MANAGER].outcome == "disabled"
    assert plan.changes.of(Feature.CERT_MANAGER).change == "disable"
    assert [(a.action, a.resource) for a in plan.actions] == [("delete", "certManager")]


def test_the_tiered_storage_disable_plan_keeps_the_oidc_provider_and_says_why(world):
    world.enable(Feature.TIERED_STORAGE)
    plan = world.panel.plan(TAG, patch(tieredStorage={"enabled": False}))
    (delete, keep) = plan.actions
    assert delete.action == "delete" and "OIDC provider" not in delete.name.split("(")[0]
    assert (keep.action, keep.name) == ("keep", "IAM OIDC provider of the EKS cluster")
    assert "dependencies stage created it" in (keep.detail or "")


def test_a_half_built_feature_is_finished_by_enable_and_removed_by_disable(world):
    world.iam.create_role(
        "instantstart-demo-fsx-csi",
        {},
        feature_tags(DEPLOYMENT, TAG, Feature.FSX_CSI_DRIVER),
        "arn:aws:iam::123456789012:policy/boundary",
    )
    assert world.state(Feature.FSX_CSI_DRIVER).state == "partial"
    assert (
        world.panel.plan(TAG, patch(fsxCsiDriver={"enabled": True})).changes.of(Feature.FSX_CSI_DRIVER).change
        == "enable"
    )
    assert (
        world.panel.plan(TAG, patch(fsxCsiDriver={"enabled": False})).changes.of(Feature.FSX_CSI_DRIVER).change
        == "disable"
    )


def test_absent_features_are_not_read_as_intent(world):
    install_cert_manager(world)
    update = world.panel.update(TAG, patch(kuberayOperator={"enabled": True}), None, ADMIN)
    assert outcomes(update) == {"kuberayOperator": "enabled"}
    assert update.stages == ["kuberayOperator"]
    (_, _, payload) = world.launcher.started[0]
    assert payload["features"]["kuberayOperator"]["change"] == "enable"
    assert {name for name, change in payload["features"].items() if change["change"] != "none"} == {"kuberayOperator"}


def test_one_request_is_one_operation_disabling_first_in_reverse_order_then_enabling(world):
    install_cert_manager(world)
    world.enable(Feature.KUBERAY_OPERATOR)
    request = patch(certManager={"enabled": False}, kuberayOperator={"enabled": False}, fsxCsiDriver={"enabled": True})
    token = world.panel.update(TAG, request, None, ADMIN).confirmationToken
    update = world.panel.update(TAG, request, token, ADMIN)
    assert outcomes(update) == {"certManager": "disabled", "fsxCsiDriver": "enabled", "kuberayOperator": "disabled"}
    assert update.stages == ["kuberayOperator", "certManager", "fsxCsiDriver"]
    assert [a.action for a in update.actions] == ["delete", "delete", "create"]
    assert len(world.launcher.started) == 1
    assert world.registry.find(TAG).activeOperationId == update.operationId


def test_dry_run_returns_the_plan_and_starts_nothing(world):
    result = world.panel.dry_run(TAG, patch(certManager={"enabled": True}, fsxCsiDriver={"enabled": True}), ADMIN)
    assert result.dryRun is True and result.confirmationToken is None
    assert outcomes(result) == {"certManager": "enabled", "fsxCsiDriver": "enabled"}
    assert [a.resource for a in result.actions] == ["certManager", "fsxCsiDriver"]
    assert result.operationId is None
    assert world.launcher.started == []


def test_a_disable_answers_with_its_plan_and_a_token_and_starts_only_with_that_token(world):
    install_cert_manager(world)
    request = patch(certManager={"enabled": False})
    planned = world.panel.update(TAG, request, None, ADMIN)
    assert (planned.dryRun, planned.operationId, outcomes(planned)) == (True, None, {"certManager": "disabled"})
    assert planned.confirmationToken and "Ask the person to confirm" in (planned.message or "")
    assert world.launcher.started == []
    with pytest.raises(ConfirmationRequiredError):
        world.panel.update(TAG, request, planned.confirmationToken, Actor("mallory", Role.ADMIN))
    with pytest.raises(ConfirmationRequiredError):
        world.panel.update(
            TAG,
            patch(certManager={"enabled": False}, kuberayOperator={"enabled": True}),
            planned.confirmationToken,
            ADMIN,
        )
    assert world.launcher.started == []
    started = world.panel.update(TAG, request, planned.confirmationToken, ADMIN)
    assert started.operationId and started.confirmationToken is None
    assert len(world.launcher.started) == 1


def test_a_dry_run_of_a_disable_carries_a_token_and_an_enable_needs_none(world):
    install_cert_manager(world)
    assert world.panel.dry_run(TAG, patch(certManager={"enabled": False}), ADMIN).confirmationToken
    update = world.panel.update(TAG, patch(kuberayOperator={"enabled": True}), None, ADMIN)
    assert update.operationId and update.confirmationToken is None


def enable_tiered(world: FeatureWorld, percentage: int | None) -> None:
    assert world.enable(Feature.TIERED_STORAGE, FeatureChange(change="enable", percentage=percentage)).done


@pytest.mark.parametrize(
    ("request_fields", "change", "percentage"),
    [
        ({"configMode": "custom", "percentage": 60}, "update", 60),
        ({"configMode": "custom", "percentage": 50}, "none", 50),
        ({}, "none", 50),
        ({"configMode": "default"}, "update", None),
    ],
)
def test_tiered_storage_percentage_is_diffed_against_the_live_setting(world, request_fields, change, percentage):
    enable_tiered(world, 50)
    plan = world.panel.plan(TAG, patch(tieredStorage={"enabled": True, **request_fields}))
    assert plan.changes.of(Feature.TIERED_STORAGE).change == change
    assert plan.changes.of(Feature.TIERED_STORAGE).percentage == percentage
    expected = {"none": "unchanged", "update": "updated"}[change]
    assert plan.outcomes[Feature.TIERED_STORAGE].outcome == expected


def test_an_update_names_the_new_setting_in_its_action(world):
    enable_tiered(world, 50)
    plan = world.panel.plan(TAG, patch(tieredStorage={"enabled": True, "configMode": "custom", "percentage": 80}))
    assert [(a.action, a.detail) for a in plan.actions] == [("create", "InstanceMemoryAllocationPercentage 80")]


def test_karpenter_groups_are_compared_as_a_set_and_kept_when_omitted(world):
    world.add_hyperpod("hp-cluster-demo", group("workers"), group("spare"), NodeRecovery="Automatic")
    world.enable(Feature.KARPENTER, FeatureChange(change="enable", instanceGroups=["workers", "spare"]))
    assert world.state(Feature.KARPENTER).state == "enabled"
    same = world.panel.plan(TAG, patch(karpenter={"enabled": True, "instanceGroups": ["spare", "workers"]}))
    kept = world.panel.plan(TAG, patch(karpenter={"enabled": True}))
    narrowed = world.panel.plan(TAG, patch(karpenter={"enabled": True, "instanceGroups": ["workers"]}))
    assert same.changes.of(Feature.KARPENTER).change == "none"
    assert (kept.changes.of(Feature.KARPENTER).change, kept.changes.of(Feature.KARPENTER).instanceGroups) == (
        "none",
        ["workers", "spare"],
    )
    assert (narrowed.changes.of(Feature.KARPENTER).change, narrowed.changes.of(Feature.KARPENTER).instanceGroups) == (
        "update",
        ["workers"],
    )
    assert narrowed.actions[0].detail == "instance groups workers"


def test_an_unregistered_cluster_is_not_found(world):
    with pytest.raises(ClusterNotFoundError, match="GET /clusters"):
        world.panel.plan("other", patch(certManager={"enabled": True}))


def test_a_cluster_before_its_dependencies_stage_is_refused_naming_the_stage(world):
    world.register(stagesDone=["eks"])
    with pytest.raises(ClusterNotReadyError, match="'dependencies' stage") as refused:
        world.panel.plan(TAG, patch(certManager={"enabled": True}))
    assert refused.value.details == {"needs": "dependencies", "stagesDone": ["eks"]}


def test_the_view_shows_every_feature_with_what_it_requires_and_whether_it_is_available(world):
    del world.hyperpod.clusters["hp-cluster-demo"]
    view = world.panel.view(TAG)
    assert view.hasHyperPod is False
    assert set(view.features) == {feature.value for feature in Feature}
    assert view.features["trainingOperator"].requires == ["certManager"]
    assert view.features["inferenceOperator"].requires == ["certManager", "fsxCsiDriver"]
    assert view.features["tieredStorage"].available is False
    assert view.features["certManager"].available is True


def test_an_imported_cluster_is_read_under_its_own_hyperpod_name(world):
    del world.hyperpod.clusters["hp-cluster-demo"]
    world.add_hyperpod("their-hyperpod")
    world.register(imported=True, hyperPodClusterName="their-hyperpod")
    assert world.panel.view(TAG).hasHyperPod is True
    plan = world.panel.plan(TAG, patch(tieredStorage={"enabled": True}))
    assert plan.outcomes[Feature.TIERED_STORAGE].outcome == "enabled"


def test_an_addon_installed_outside_instantstart_says_so(world):
    world.install_addon("cert-manager", tags={})
    state = world.panel.view(TAG).features["certManager"]
    assert state.enabled is True
    assert state.message == "Installed outside InstantStart: the control plane will not remove it."
