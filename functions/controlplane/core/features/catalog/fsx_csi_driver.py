"""The FSx for Lustre CSI driver: the EKS add-on with its own IRSA role (kube-system/fsx-csi-controller-sa)."""

from __future__ import annotations

from controlplane.core.features.addon import AddonFeature, AddonRole
from controlplane.core.features.declaration import AddonPin, FeatureDeclaration, FeaturePorts
from controlplane.core.identity import FSX_CSI_POLICY
from controlplane.core.naming import fsx_csi_role_name
from controlplane.models.features import Feature

FSX_CSI_ADDON = "aws-fsx-csi-driver"
_PIN = AddonPin(FSX_CSI_ADDON, "v1.7.0-eksbuild.1")
FSX_CSI_SERVICE_ACCOUNT = "fsx-csi-controller-sa"


def _build(ports: FeaturePorts) -> AddonFeature:
    role = AddonRole(
        ports.iam,
        fsx_csi_role_name,
        (FSX_CSI_POLICY,),
        boundary_arn=ports.boundaries.service,
        irsa=FSX_CSI_SERVICE_ACCOUNT,
    )
    return AddonFeature(ports.eks, Feature.FSX_CSI_DRIVER, FSX_CSI_ADDON, ports.version(_PIN), role=role)


FEATURE = FeatureDeclaration(
    Feature.FSX_CSI_DRIVER,
    "IAM role (web identity, kube-system/fsx-csi-controller-sa) and EKS add-on aws-fsx-csi-driver",
    _build,
    addon=_PIN,
    role=fsx_csi_role_name,
)
