"""The KubeRay operator, a bundle of Kubernetes objects: applied whole, removed only where labelled ours."""

from __future__ import annotations

from dataclasses import replace

import pytest

from controlplane.models.errors import ClusterNotReadyError, ForeignResourceError
from controlplane.models.features import Feature
from tests.unit.core.features.world import EKS_NAME, FeatureWorld

NAMESPACE = "Namespace/kuberay-operator"
DEPLOYMENT = "Deployment/kuberay-operator/kuberay-operator"


@pytest.fixture
def world() -> FeatureWorld:
    return FeatureWorld()


def test_enabling_applies_the_whole_bundle_and_the_feature_is_enabled(world):
    assert world.enable(Feature.KUBERAY_OPERATOR).done
    assert set(world.kubernetes_objects) == {NAMESPACE, DEPLOYMENT}
    state = world.state(Feature.KUBERAY_OPERATOR)
    assert (state.enabled, state.state) == (True, "enabled")
    assert state.resources == ["Namespace kuberay-operator", "Deployment kuberay-operator/kuberay-operator"]


def test_a_half_applied_bundle_is_partial_and_finished_by_enabling_again(world):
    world.enable(Feature.KUBERAY_OPERATOR)
    del world.kubernetes_objects[DEPLOYMENT]
    assert world.state(Feature.KUBERAY_OPERATOR).state == "partial"
    assert world.enable(Feature.KUBERAY_OPERATOR).done
    assert DEPLOYMENT in world.kubernetes_objects


def test_an_object_of_the_same_name_without_our_label_blocks_enabling(world):
    world.kubernetes_objects[NAMESPACE] = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "kuberay-operator"},
    }
    state = world.state(Feature.KUBERAY_OPERATOR)
    assert state.state == "disabled"
    assert state.message == "Some objects exist that InstantStart did not create."
    with pytest.raises(ForeignResourceError, match="Namespace kuberay-operator already exist"):
        world.enable(Feature.KUBERAY_OPERATOR)
    assert DEPLOYMENT not in world.kubernetes_objects


def test_disabling_deletes_only_the_labelled_objects(world):
    world.enable(Feature.KUBERAY_OPERATOR)
    world.kubernetes_objects[NAMESPACE]["metadata"]["labels"] = {}
    assert world.disable(Feature.KUBERAY_OPERATOR).done
    assert set(world.kubernetes_objects) == {NAMESPACE}


def test_enabling_needs_an_active_eks_cluster(world):
    world.eks.clusters[EKS_NAME] = replace(world.eks.clusters[EKS_NAME], status="UPDATING")
    with pytest.raises(ClusterNotReadyError, match="is not ACTIVE"):
        world.enable(Feature.KUBERAY_OPERATOR)


def test_disabling_without_a_kubernetes_api_has_nothing_to_delete(world):
    world.enable(Feature.KUBERAY_OPERATOR)
    del world.eks.clusters[EKS_NAME]
    assert world.disable(Feature.KUBERAY_OPERATOR).done
