"""The one check of a request that builds on an add-on feature: the add-on is ACTIVE, else 409 FeatureNotEnabled
saying its state and how to enable it, for every feature the services ask about."""

from __future__ import annotations

import pytest

from controlplane.core.features.catalog import CATALOG
from controlplane.core.features.required import require_addon_feature
from controlplane.models.errors import FeatureNotEnabledError
from controlplane.models.features import Feature
from tests.fakes.eks import InMemoryEksGateway

EKS = "eks-cluster-demo"
ASKED = (Feature.TRAINING_OPERATOR, Feature.TASK_GOVERNANCE, Feature.DEV_SPACES, Feature.INFERENCE_OPERATOR)


def check(eks: InMemoryEksGateway, feature: Feature) -> None:
    require_addon_feature(eks, "demo", EKS, feature, needs="Jobs need", addon="its add-on", then=", then retry")


@pytest.mark.parametrize("feature", ASKED)
def test_an_active_addon_passes_and_a_missing_or_degraded_one_is_refused_saying_how_to_enable_it(
    feature: Feature,
) -> None:
    eks = InMemoryEksGateway()
    with pytest.raises(FeatureNotEnabledError) as missing:
        check(eks, feature)
    assert missing.value.message == (
        f"Jobs need the '{feature.value}' feature (its add-on is not installed). Enable it with PATCH "
        f'/clusters/demo/features {{"{feature.value}": {{"enabled": true}}}}, then retry.'
    )
    assert (missing.value.status, missing.value.details) == (409, {"feature": feature.value})
    addon = CATALOG[feature].addon
    assert addon is not None
    eks.add_addon(EKS, addon.name, status="DEGRADED")
    with pytest.raises(FeatureNotEnabledError, match=r"\(its add-on is DEGRADED, not ACTIVE\)"):
        check(eks, feature)
    eks.add_addon(EKS, addon.name)
    check(eks, feature)


def test_a_feature_that_is_no_addon_is_a_programming_error() -> None:
    with pytest.raises(LookupError, match="kuberayOperator"):
        check(InMemoryEksGateway(), Feature.KUBERAY_OPERATOR)
