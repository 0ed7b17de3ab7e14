"""The simulated PV controller: a static claim and the volume reserved for it bind in either order; a claim on a
volume reserved for another stays Pending; deleting the claim releases the volume, deleting the volume loses the
claim; a second volume with a CSI driver's handle already taken never binds and its claim gets a Warning event."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.volumes import DUPLICATE_HANDLE, VolumeBinding

CLUSTER = "eks-cluster-vol"


@pytest.fixture
def store() -> ClusterStore:
    emulator = KubernetesEmulator()
    emulator.add_cluster(CLUSTER)
    VolumeBinding(emulator).install()
    return emulator.store(CLUSTER)


def volume(name: str, claim: str, handle: str = "") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "capacity": {"storage": "1200Gi"},
            "accessModes": ["ReadWriteMany"],
            "claimRef": {"namespace": "team", "name": claim},
            "csi": {"driver": "s3.csi.aws.com", "volumeHandle": handle or f"handle-{name}"},
        },
    }


def claim(name: str, volume_name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "team"},
        "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "", "volumeName": volume_name},
    }


def phase(store: ClusterStore, plural: str, name: str) -> str | None:
    found = store.get("", "v1", plural, None if plural == "persistentvolumes" else "team", name)
    return ((found or {}).get("status") or {}).get("phase")


@pytest.mark.parametrize("claim_first", [True, False])
def test_a_static_claim_and_its_reserved_volume_bind_in_either_order(store, claim_first):
    writes = [claim("data", "pv-a"), volume("pv-a", "data")]
    for obj in writes if claim_first else reversed(writes):
        store.put(obj)
    assert (phase(store, "persistentvolumeclaims", "data"), phase(store, "persistentvolumes", "pv-a")) == (
        "Bound",
        "Bound",
    )
    bound = store.get("", "v1", "persistentvolumeclaims", "team", "data")
    assert bound["status"]["capacity"] == {"storage": "1200Gi"}


def test_a_claim_on_a_volume_reserved_for_another_stays_pending(store):
    store.put(volume("pv-a", "other"))
    store.put(claim("data", "pv-a"))
    assert phase(store, "persistentvolumeclaims", "data") == "Pending"


def test_deleting_the_claim_releases_the_volume_and_deleting_a_volume_loses_its_claim(store):
    store.put(volume("pv-a", "data"))
    store.put(claim("data", "pv-a"))
    store.delete("", "v1", "persistentvolumeclaims", "team", "data")
    assert phase(store, "persistentvolumes", "pv-a") == "Released"
    store.put(volume("pv-b", "kept"))
    store.put(claim("kept", "pv-b"))
    store.delete("", "v1", "persistentvolumes", None, "pv-b")
    assert phase(store, "persistentvolumeclaims", "kept") == "Lost"


def test_a_second_volume_with_a_taken_handle_never_binds_and_its_claim_is_warned(store):
    store.put(volume("pv-a", "first", handle="same"))
    store.put(claim("first", "pv-a"))
    store.put(volume("pv-b", "second", handle="same"))
    store.put(claim("second", "pv-b"))
    assert phase(store, "persistentvolumeclaims", "first") == "Bound"
    assert phase(store, "persistentvolumeclaims", "second") == "Pending"
    warnings = [e for e in store.list("", "v1", "events", "team") if e["reason"] == DUPLICATE_HANDLE]
    assert [(e["involvedObject"]["name"], e["type"]) for e in warnings] == [("second", "Warning")]
