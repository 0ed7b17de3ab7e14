"""What stage 3 creates, from the reviewed pins: the OIDC provider, the S3 CSI driver's role, the add-ons and
the HyperPod dependency manifests with each image from the registry of the cluster's Region; and the Regions where
every one of those images has a registry (the others are refused before anything is created)."""

from __future__ import annotations

from collections.abc import Iterable

from controlplane.config import DependencyPins
from controlplane.core.naming import Deployment, s3_csi_role_name
from controlplane.models.clusters import ClusterRecord, PlannedAction
from controlplane.models.errors import UnsupportedRegionError


def supported_regions(pins: DependencyPins, regions: Iterable[str]) -> list[str]:
    """Those of `regions` where every dependency image has a registry, sorted."""
    served = [pins.images.regions(pin.image) for pin in pins.manifests.values() if pin.image]
    return sorted(region for region in regions if all(found is None or region in found for found in served))


def dependency_images(pins: DependencyPins, region: str) -> dict[str, str]:
    """The image of each dependency manifest that runs one, as nodes in `region` pull it; `UnsupportedRegionError`
    naming the images that no registry serves there."""
    images = {name: pins.images.uri(pin.image, region) for name, pin in pins.manifests.items() if pin.image}
    missing = sorted(name for name, uri in images.items() if uri is None)
    if missing:
        regions = set.intersection(
            *(
                set(found)
                for pin in pins.manifests.values()
                if pin.image and (found := pins.images.regions(pin.image)) is not None
            )
        )
        raise UnsupportedRegionError(
            f"Region '{region}' has no registry for {', '.join(missing)}, which every HyperPod cluster runs; "
            f"choose one of the Regions that have them: {', '.join(sorted(regions))}.",
            {"region": region, "images": missing, "supportedRegions": sorted(regions)},
        )
    return {name: uri for name, uri in images.items() if uri is not None}


def dependency_actions(deployment: Deployment, record: ClusterRecord, pins: DependencyPins) -> list[PlannedAction]:
    images = dependency_images(pins, record.region)
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
            PlannedAction(action="create", resource="Kubernetes manifest", name=name, detail=images.get(name))
            for name in pins.manifests
        ],
    ]
