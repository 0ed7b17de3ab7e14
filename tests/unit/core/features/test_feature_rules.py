"""The rules between features: dependencies are enforced, never resolved by hidden intent."""

from __future__ import annotations

from typing import Any

import pytest

from controlplane.core.features import DISABLE_ORDER, ENABLE_ORDER
from controlplane.core.features.catalog import CATALOG
from controlplane.core.features.rules import check_dependencies, require_hyperpod
from controlplane.core.naming import feature_tags
from controlplane.models.errors import ClusterNotReadyError, FeatureDependencyError
from controlplane.models.features import Feature, FeatureChange, FeatureState, UpdateFeaturesRequest
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.features.world import ADMIN, TAG, FeatureWorld


@pytest.fixture
def world() -> FeatureWorld:
    return FeatureWorld()


def patch(**features: Any) -> UpdateFeaturesRequest:
    return UpdateFeaturesRequest.model_validate(features)


def live(*enabled: Feature) -> dict[Feature, FeatureState]:
    return {
        feature: FeatureState(enabled=feature in enabled, state="enabled" if feature in enabled else "disabled")
        for feature in Feature
    }


def test_every_dependency_comes_before_its_dependent_in_the_enable_order():
    for feature, spec in CATALOG.items():
        for dependency in spec.requires:
            assert ENABLE_ORDER.index(dependency) < ENABLE_ORDER.index(feature)
    assert tuple(reversed(ENABLE_ORDER)) == DISABLE_ORDER
    assert set(CATALOG) == set(Feature)


def test_enabling_a_feature_without_its_dependency_is_refused_naming_the_missing_feature(world):
    with pytest.raises(FeatureDependencyError, match="trainingOperator needs certManager") as refused:
        world.panel.update(TAG, patch(trainingOperator={"enabled": True}), None, ADMIN)
    assert refused.value.details == {"feature": "trainingOperator", "missing": ["certManager"]}
    assert '"certManager": {"enabled": true}' in str(refused.value)
    assert world.launcher.started == []


def test_every_missing_dependency_is_named():
    with pytest.raises(FeatureDependencyError) as refused:
        check_dependencies(live(), {Feature.INFERENCE_OPERATOR: FeatureChange(change="enable")})
    assert refused.value.details["missing"] == ["certManager", "fsxCsiDriver"]


def test_a_dependency_enabled_in_the_same_request_is_enough_and_enabled_first(world):
    plan = world.panel.plan(TAG, patch(trainingOperator={"enabled": True}, certManager={"enabled": True}))
    assert plan.stages == ["certManager", "trainingOperator"]


def test_a_dependency_that_is_half_built_counts_as_present():
    states = live()
    states[Feature.CERT_MANAGER] = FeatureState(enabled=False, state="partial")
    check_dependencies(states, {Feature.TRAINING_OPERATOR: FeatureChange(change="enable")})


def test_disabling_a_dependency_while_updating_its_dependent_is_refused():
    with pytest.raises(FeatureDependencyError, match="certManager cannot be disabled: trainingOperator needs it"):
        check_dependencies(
            live(Feature.CERT_MANAGER, Feature.TRAINING_OPERATOR),
            {
                Feature.CERT_MANAGER: FeatureChange(change="disable"),
                Feature.TRAINING_OPERATOR: FeatureChange(change="update"),
            },
        )


def test_disabling_a_feature_another_enabled_feature_needs_is_refused_naming_the_dependent():
    with pytest.raises(FeatureDependencyError, match="certManager cannot be disabled: trainingOperator") as refused:
        check_dependencies(
            live(Feature.CERT_MANAGER, Feature.TRAINING_OPERATOR),
            {Feature.CERT_MANAGER: FeatureChange(change="disable")},
        )
    assert refused.value.details == {"feature": "certManager", "dependents": ["trainingOperator"]}


def test_disabling_a_feature_with_its_dependents_in_one_request_removes_the_dependents_first(world):
    world.install_addon("cert-manager", tags=feature_tags(DEPLOYMENT, TAG, Feature.CERT_MANAGER))
    world.install_addon(
        "amazon-sagemaker-hyperpod-training-operator", tags=feature_tags(DEPLOYMENT, TAG, Feature.TRAINING_OPERATOR)
    )
    plan = world.panel.plan(TAG, patch(certManager={"enabled": False}, trainingOperator={"enabled": False}))
    assert plan.stages == ["trainingOperator", "certManager"]
    assert [action.action for action in plan.actions] == ["delete", "delete"]


def test_a_feature_built_on_hyperpod_is_refused_before_the_hyperpod_cluster_exists(world):
    del world.hyperpod.clusters["hp-cluster-demo"]
    with pytest.raises(ClusterNotReadyError, match="tieredStorage needs the HyperPod cluster") as refused:
        world.panel.plan(TAG, patch(tieredStorage={"enabled": True}))
    assert refused.value.details == {"feature": "tieredStorage"}


def test_features_that_do_not_need_hyperpod_are_allowed_without_it():
    require_hyperpod(TAG, [Feature.CERT_MANAGER, Feature.FSX_CSI_DRIVER, Feature.KUBERAY_OPERATOR], False)
