"""cert-manager: the EKS add-on at its pinned version, nothing else (no role, no bucket)."""

from __future__ import annotations

from controlplane.config import FeaturePins
from controlplane.core.features.addon import AddonFeature
from controlplane.core.ports.eks import EksGateway
from controlplane.models.features import Feature

CERT_MANAGER_ADDON = "cert-manager"


def cert_manager_feature(eks: EksGateway, pins: FeaturePins) -> AddonFeature:
    return AddonFeature(eks, Feature.CERT_MANAGER, CERT_MANAGER_ADDON, pins)
