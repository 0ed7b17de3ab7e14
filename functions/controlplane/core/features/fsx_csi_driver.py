"""The FSx for Lustre CSI driver: the EKS add-on with its own IRSA role (kube-system/fsx-csi-controller-sa)."""

from __future__ import annotations

from controlplane.config import FeaturePins
from controlplane.core.features.addon import AddonFeature, AddonRole
from controlplane.core.identity import FSX_CSI_POLICY
from controlplane.core.naming import fsx_csi_role_name
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.models.features import Feature

FSX_CSI_ADDON = "aws-fsx-csi-driver"
FSX_CSI_SERVICE_ACCOUNT = "fsx-csi-controller-sa"


def fsx_csi_driver_feature(iam: IamGateway, eks: EksGateway, pins: FeaturePins, boundary_arn: str) -> AddonFeature:
    role = AddonRole(iam, fsx_csi_role_name, (FSX_CSI_POLICY,), boundary_arn=boundary_arn, irsa=FSX_CSI_SERVICE_ACCOUNT)
    return AddonFeature(eks, Feature.FSX_CSI_DRIVER, FSX_CSI_ADDON, pins, role=role)
