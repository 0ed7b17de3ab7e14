"""A list's body is built from each object's stored encoding: the same JSON a fresh encoding gives, renewed by a
write, gone with the object."""

from __future__ import annotations

import json

from sandbox.k8s.kinds import BUILTIN_KINDS
from sandbox.k8s.objects import encode_json
from sandbox.k8s.store import ObjectStore

PODS = BUILTIN_KINDS[("", "v1", "pods")]


def pod(name: str, phase: str) -> dict:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"nodeName": "n1"}, "status": {"phase": phase}}


def test_an_encoding_is_the_objects_json_and_a_write_renews_it() -> None:
    store = ObjectStore()
    stored = store.insert(PODS, pod("p", "Pending"), [])
    assert store.encoded(PODS, stored) == encode_json(stored)
    assert store.encoded(PODS, stored) is store.encoded(PODS, stored)  # encoded once

    replaced = store.replace(PODS, stored, pod("p", "Running"), [])
    assert json.loads(store.encoded(PODS, replaced))["status"]["phase"] == "Running"


def test_a_removed_objects_encoding_is_dropped() -> None:
    store = ObjectStore()
    stored = store.insert(PODS, pod("p", "Pending"), [])
    store.encoded(PODS, stored)
    store.remove(PODS.storage, ("default", "p"), [])
    assert store._encoded == {}


def test_a_replaced_objects_encoding_is_dropped_with_it() -> None:
    """Encodings are kept by the stored object's identity (a 125,000-pod list looks each up, building no key): the
    object a write replaced takes its encoding with it."""
    store = ObjectStore()
    stored = store.insert(PODS, pod("p", "Pending"), [])
    store.encoded(PODS, stored)
    replaced = store.replace(PODS, stored, pod("p", "Running"), [])
    store.encoded(PODS, replaced)
    assert [cached for cached, _ in store._encoded.values()] == [replaced]
