"""A simulated PV controller for static provisioning, the part of kube-controller-manager the control plane's claims
meet: a claim naming a volume (`spec.volumeName`) binds to it when the volume exists and reserves it for that claim
(`spec.claimRef`, or none), and then both report `Bound`; a claim whose volume is missing or reserved for another
stays `Pending`; a volume whose claim is deleted is `Released`, and a bound claim whose volume is deleted `Lost`
[doc: kubernetes.io, Persistent Volumes: Binding, Reserving a PersistentVolume, Phase].

A volume whose CSI `volumeHandle` another volume of the same driver already has is never bound here. The API server
accepts it, but kubelet names a CSI volume by driver and handle, so pods of both claims on one node would share one
mount, and the Mountpoint for S3 CSI driver's static provisioning requires the handle to be unique per volume
[doc: awslabs/mountpoint-s3-csi-driver, docs/STATIC_PROVISIONING.md; inferred: a cluster fails such a pod at mount
time]. The sandbox surfaces the mistake when it is made: the claim stays `Pending` with a Warning event on it.
"""

from __future__ import annotations

from typing import Any

from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.pods import SimulatedPods

JsonObject = dict[str, Any]
PV, PVC = "persistentvolumes", "persistentvolumeclaims"
DUPLICATE_HANDLE = "DuplicateVolumeHandle"


class VolumeBinding:
    def __init__(self, emulator: KubernetesEmulator) -> None:
        self._emulator = emulator

    def install(self) -> None:
        self._emulator.add_listener(self._on_event)

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        if obj.get("apiVersion") != "v1" or obj.get("kind") not in ("PersistentVolume", "PersistentVolumeClaim"):
            return
        try:
            store = self._emulator.store(cluster)
        except LookupError:
            return
        if obj["kind"] == "PersistentVolumeClaim":
            if event_type != "DELETED":
                _settle_claim(store, obj)
                return
            volume = store.get("", "v1", PV, None, str((obj.get("spec") or {}).get("volumeName")))
            if volume is not None and _reserved_for(volume) in (None, _key(obj)):
                _set_phase(store, volume, "Released")
            return
        for claim in store.list("", "v1", PVC):
            if (claim.get("spec") or {}).get("volumeName") == obj["metadata"]["name"]:
                _settle_claim(store, claim)


def _settle_claim(store: ClusterStore, heard: JsonObject) -> None:
    claim = store.get("", "v1", PVC, *_key(heard))
    if claim is None:
        return
    name = (claim.get("spec") or {}).get("volumeName")
    volume = store.get("", "v1", PV, None, str(name)) if name else None
    if volume is None:
        _set_phase(store, claim, "Lost" if _phase(claim) in ("Bound", "Lost") else "Pending")
        return
    if _phase(claim) == "Bound":
        return  # a binding is never undone while both exist
    if _reserved_for(volume) not in (None, _key(claim)):
        _set_phase(store, claim, "Pending")
        return
    duplicate = _duplicate_handle(store, volume)
    if duplicate is not None:
        if not _warned(store, claim):
            SimulatedPods.event(
                store,
                claim,
                DUPLICATE_HANDLE,
                f"volume {volume['metadata']['name']} has the volumeHandle of volume {duplicate}; each PV of a CSI "
                "driver needs its own volumeHandle",
                warning=True,
            )
        _set_phase(store, claim, "Pending")
        return
    spec = volume.get("spec") or {}
    _set_phase(store, volume, "Bound")
    _set_phase(
        store,
        claim,
        "Bound",
        accessModes=list(spec.get("accessModes") or []),
        capacity=dict(spec.get("capacity") or {}),
    )


def _duplicate_handle(store: ClusterStore, volume: JsonObject) -> str | None:
    """The name of another volume of the same CSI driver with this volume's handle, if there is one."""
    csi = (volume.get("spec") or {}).get("csi") or {}
    if not csi.get("volumeHandle"):
        return None
    for other in store.list("", "v1", PV):
        theirs = (other.get("spec") or {}).get("csi") or {}
        if other["metadata"]["name"] != volume["metadata"]["name"] and (
            theirs.get("driver"),
            theirs.get("volumeHandle"),
        ) == (csi.get("driver"), csi["volumeHandle"]):
            return str(other["metadata"]["name"])
    return None


def _warned(store: ClusterStore, claim: JsonObject) -> bool:
    namespace, name = _key(claim)
    return store.any(
        "",
        "v1",
        "events",
        lambda event: (
            event.get("reason") == DUPLICATE_HANDLE
            and (event.get("involvedObject") or {}).get("name") == name
            and (event.get("involvedObject") or {}).get("namespace") == namespace
        ),
    )


def _reserved_for(volume: JsonObject) -> tuple[str, str] | None:
    ref = (volume.get("spec") or {}).get("claimRef")
    return (str(ref.get("namespace")), str(ref.get("name"))) if ref else None


def _key(claim: JsonObject) -> tuple[str, str]:
    return str(claim["metadata"].get("namespace", "default")), str(claim["metadata"]["name"])


def _phase(obj: JsonObject) -> str | None:
    return (obj.get("status") or {}).get("phase")


def _set_phase(store: ClusterStore, obj: JsonObject, phase: str, **fields: Any) -> None:
    """Write the object's status as it is stored now, only when it changes (each write is an event this controller
    hears again)."""
    plural = PVC if obj["kind"] == "PersistentVolumeClaim" else PV
    current = store.get("", "v1", plural, obj["metadata"].get("namespace"), obj["metadata"]["name"])
    if current is None:
        return
    status = {**(current.get("status") or {}), "phase": phase, **fields}
    if status != current.get("status"):
        store.put({**current, "status": status})
