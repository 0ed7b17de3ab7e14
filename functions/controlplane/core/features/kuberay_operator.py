"""The KubeRay operator: its pinned manifest bundle (namespace, ray.io CRDs, RBAC, the operator Deployment)."""

from __future__ import annotations

from controlplane.config import FeaturePins
from controlplane.core.features.manifest import ManifestFeature
from controlplane.core.ports.kubernetes import KubernetesGateway, ManifestRenderer
from controlplane.models.features import Feature

KUBERAY_BUNDLE = "kuberay-operator"


def kuberay_operator_feature(
    kubernetes: KubernetesGateway, render: ManifestRenderer, pins: FeaturePins
) -> ManifestFeature:
    pin = pins.manifests[KUBERAY_BUNDLE]
    return ManifestFeature(kubernetes, render, Feature.KUBERAY_OPERATOR, KUBERAY_BUNDLE, pin, pins.images)
