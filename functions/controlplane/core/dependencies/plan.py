"""What stage 3 creates, from the reviewed pins: the OIDC provider, the S3 CSI driver's role, the add-ons and
the HyperPod dependency manifests."""

from __future__ import annotations

from controlplane.config import DependencyPins
from controlplane.core.naming import Deployment, s3_csi_role_name
from controlplane.models.clusters import ClusterRecord, PlannedAction


def dependency_actions(deployment: Deployment, record: ClusterRecord, pins: DependencyPins) -> list[PlannedAction]:
    return [
        PlannedAction(action="create", resource="AWS::IAM::OIDCProvider", name=f"{record.eksClusterName} issuer"),
        PlannedAction(
            action="create",
            resource="AWS::IAM::Role",
            name=s3_csi_role_name(deployment, record.clusterTag),
            detail="IRSA for kube-system/s3-csi-driver-sa; objects in instantstart-<tag>-* buckets",
        ),
        *[
            PlannedAction(action="create", resource="AWS::EKS::Addon", name=addon, detail=version)
            for addon, version in pins.addons.items()
        ],
        *[
            PlannedAction(action="create", resource="Kubernetes manifest", name=name, detail=pin.image)
            for name, pin in pins.manifests.items()
        ],
    ]
