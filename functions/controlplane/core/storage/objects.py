"""The Kubernetes objects stage 5 applies: a static PersistentVolume and its claim per bucket or file system."""

from __future__ import annotations

from typing import Any

from controlplane.core.naming import persistent_volume_name
from controlplane.core.ports.storage import LustreFileSystem
from controlplane.models.storage import FsxPlan, StoragePlan

S3_CSI_DRIVER = "s3.csi.aws.com"
PV_CAPACITY = "1200Gi"
FSX_CSI_DRIVER = "fsx.csi.aws.com"
MANAGED_BY_LABEL = {"app.kubernetes.io/managed-by": "instantstart"}


def storage_objects(plan: StoragePlan, cluster_tag: str, region: str) -> list[dict[str, object]]:
    """The PV bound to the bucket and the claim pods mount (static provisioning, ReadWriteMany)."""
    volume = persistent_volume_name(cluster_tag, plan.claimName)
    labels = dict(MANAGED_BY_LABEL)
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": volume, "labels": labels},
            "spec": {
                "capacity": {"storage": PV_CAPACITY},
                "accessModes": ["ReadWriteMany"],
                "storageClassName": "",
                "claimRef": {"namespace": plan.namespace, "name": plan.claimName},
                "mountOptions": ["allow-delete", f"region {region}"],
                "csi": {
                    "driver": S3_CSI_DRIVER,
                    "volumeHandle": f"s3-csi-driver-volume-{plan.claimName}",
                    "volumeAttributes": {"bucketName": plan.bucketName},
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": plan.claimName, "namespace": plan.namespace, "labels": labels},
            "spec": {
                "accessModes": ["ReadWriteMany"],
                "storageClassName": "",
                "resources": {"requests": {"storage": PV_CAPACITY}},
                "volumeName": volume,
            },
        },
    ]


def fsx_objects(
    file_system: LustreFileSystem, plan: FsxPlan, namespace: str, cluster_tag: str
) -> list[dict[str, object]]:
    """A static PV naming the file system (id, DNS name, mount name) and the claim bound to it."""
    volume = persistent_volume_name(cluster_tag, plan.claimName)
    capacity = f"{plan.storageCapacityGiB}Gi"
    labels = dict(MANAGED_BY_LABEL)
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": volume, "labels": labels},
            "spec": {
                "capacity": {"storage": capacity},
                "accessModes": ["ReadWriteMany"],
                "storageClassName": "",
                "persistentVolumeReclaimPolicy": "Retain",
                "claimRef": {"namespace": namespace, "name": plan.claimName},
                "mountOptions": ["flock"],
                "csi": {
                    "driver": FSX_CSI_DRIVER,
                    "volumeHandle": file_system.file_system_id,
                    "volumeAttributes": {
                        "dnsname": file_system.dns_name or "",
                        "mountname": file_system.mount_name or "",
                    },
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": plan.claimName, "namespace": namespace, "labels": labels},
            "spec": {
                "accessModes": ["ReadWriteMany"],
                "storageClassName": "",
                "resources": {"requests": {"storage": capacity}},
                "volumeName": volume,
            },
        },
    ]


def claim_reference(namespace: str, claim: str) -> dict[str, Any]:
    """A claim by kind, namespace and name: enough to find or delete it."""
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim, "namespace": namespace}}


def claim_objects(cluster_tag: str, namespace: str, claim: str) -> list[dict[str, Any]]:
    """The PV and the claim of a stage-5 claim (S3 or FSx) by kind and name: enough to find or delete them."""
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": persistent_volume_name(cluster_tag, claim)},
    }
    return [volume, claim_reference(namespace, claim)]
