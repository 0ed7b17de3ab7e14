"""The Kubernetes objects a team's namespace gets, copied from the cluster's job namespace: a static PV per storage
claim bound to the same bucket or file system, the claim bound to it, the jobs' ServiceAccount, and the Secret reader
(so a team's model server may name a token Secret of its namespace). Pure functions over the objects as read, no I/O.

A PV copies its source's CSI driver, attributes, capacity and mount options. Its `volumeHandle` is its own: the
Mountpoint for S3 CSI driver requires a handle unique per PV [doc: mountpoint-s3-csi-driver, static provisioning],
as kubelet names a CSI volume by driver and handle; the FSx CSI driver mounts from the volume's attributes (DNS and
mount name) and needs the handle only to tell volumes apart [inferred: aws-fsx-csi-driver node service], so a
suffixed handle serves both. The copy is `Retain`: removing a team's claim never touches the data.
"""

from __future__ import annotations

from typing import Any

from controlplane.core.naming import JOB_SERVICE_ACCOUNT, MANAGED_LABEL, MANAGED_LABEL_VALUE, persistent_volume_name
from controlplane.core.storage.namespace import secret_reader_rbac
from controlplane.models.governance import TeamNamespacePlan

TEAM_LABEL = "instantstart.aws/team"


def team_labels(team: str) -> dict[str, str]:
    """The labels that mark an object as one a team's namespace preparation applied."""
    return {MANAGED_LABEL: MANAGED_LABEL_VALUE, TEAM_LABEL: team}


def is_team_object(found: dict[str, Any] | None, team: str) -> bool:
    labels = ((found or {}).get("metadata") or {}).get("labels") or {}
    return labels.get(MANAGED_LABEL) == MANAGED_LABEL_VALUE and labels.get(TEAM_LABEL) == team


def claim_name(source: str) -> tuple[str, str]:
    """(namespace, name) of a claim as the cluster's record names it (`<namespace>/<claim>`)."""
    namespace, _, name = source.rpartition("/")
    return namespace or "default", name


def team_secret_reader(plan: TeamNamespacePlan) -> list[dict[str, Any]]:
    """The Secret reader's Role and RoleBinding in the team's namespace, labelled as the team's."""
    objects = secret_reader_rbac(plan.namespace)
    for obj in objects:
        obj["metadata"] = {**obj["metadata"], "labels": team_labels(plan.team)}
    return objects


def team_volume_name(cluster_tag: str, plan: TeamNamespacePlan, claim: str) -> str:
    return persistent_volume_name(cluster_tag, f"{plan.team}-{claim}")[:253]


def team_claim_objects(
    source_volume: dict[str, Any], plan: TeamNamespacePlan, claim: str, cluster_tag: str
) -> list[dict[str, Any]]:
    """The team's PV (a copy of `source_volume` with its own handle, reserved for the team's claim) and its claim."""
    spec = source_volume.get("spec") or {}
    csi = spec.get("csi") or {}
    volume = team_volume_name(cluster_tag, plan, claim)
    capacity = dict(spec.get("capacity") or {})
    labels = team_labels(plan.team)
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": volume, "labels": labels},
            "spec": {
                "capacity": capacity,
                "accessModes": list(spec.get("accessModes") or ["ReadWriteMany"]),
                "storageClassName": "",
                "persistentVolumeReclaimPolicy": "Retain",
                "claimRef": {"namespace": plan.namespace, "name": claim},
                "mountOptions": list(spec.get("mountOptions") or []),
                "csi": {
                    "driver": csi.get("driver"),
                    "volumeHandle": f"{csi.get('volumeHandle')}-{plan.namespace}",
                    "volumeAttributes": dict(csi.get("volumeAttributes") or {}),
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": claim, "namespace": plan.namespace, "labels": labels},
            "spec": {
                "accessModes": list(spec.get("accessModes") or ["ReadWriteMany"]),
                "storageClassName": "",
                "resources": {"requests": capacity},
                "volumeName": volume,
            },
        },
    ]


def team_claim_references(plan: TeamNamespacePlan, cluster_tag: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(claim, PV) by kind and name for each of the team's claims: enough to find or delete them."""
    pairs = []
    for source in plan.claims:
        _, claim = claim_name(source)
        pairs.append(
            (
                _reference("PersistentVolumeClaim", claim, plan.namespace),
                _reference("PersistentVolume", team_volume_name(cluster_tag, plan, claim)),
            )
        )
    return pairs


def team_service_account(plan: TeamNamespacePlan) -> dict[str, Any]:
    """The jobs' ServiceAccount in the team's namespace (its pod identity association names the jobs role)."""
    metadata = {"name": JOB_SERVICE_ACCOUNT, "namespace": plan.namespace, "labels": team_labels(plan.team)}
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}


def _reference(kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "v1", "kind": kind, "metadata": metadata}
