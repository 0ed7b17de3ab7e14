"""The KubeRay operator: its pinned manifest bundle (namespace, ray.io CRDs, RBAC, the operator Deployment)."""

from __future__ import annotations

from controlplane.config import ManifestPin
from controlplane.core.features.declaration import Bundle, FeatureDeclaration, FeaturePorts
from controlplane.core.features.manifest import ManifestFeature
from controlplane.models.features import Feature

KUBERAY_BUNDLE = Bundle("kuberay-operator", ManifestPin("kuberay-operator.yaml", image="kuberay-operator"))


def _build(ports: FeaturePorts) -> ManifestFeature:
    return ManifestFeature(ports.kubernetes, ports.render, Feature.KUBERAY_OPERATOR, KUBERAY_BUNDLE, ports.images)


FEATURE = FeatureDeclaration(
    Feature.KUBERAY_OPERATOR,
    "KubeRay operator: namespace kuberay-operator, ray.io CRDs, RBAC and the operator Deployment",
    _build,
    bundle=KUBERAY_BUNDLE,
)
