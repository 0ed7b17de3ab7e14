"""cert-manager: the EKS add-on at the dependencies stage's pin, nothing else (no role, no bucket)."""

from __future__ import annotations

from controlplane.core.features.addon import AddonFeature
from controlplane.core.features.declaration import AddonPin, FeatureDeclaration, FeaturePorts
from controlplane.models.features import Feature

CERT_MANAGER_ADDON = "cert-manager"
_PIN = AddonPin(CERT_MANAGER_ADDON)


def _build(ports: FeaturePorts) -> AddonFeature:
    return AddonFeature(ports.eks, Feature.CERT_MANAGER, CERT_MANAGER_ADDON, ports.version(_PIN))


FEATURE = FeatureDeclaration(Feature.CERT_MANAGER, "EKS add-on cert-manager", _build, addon=_PIN)
