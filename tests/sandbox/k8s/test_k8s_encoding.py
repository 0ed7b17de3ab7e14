"""A list's body is built from each object's stored encoding: the same JSON a fresh encoding gives, encoded once,
renewed by a write, gone with the object; a page is the ordered bucket's slice. The copies the emulator hands out
(`copy_json`) share nothing with what it stores, whatever the values' types."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import StrEnum

from sandbox.k8s.kinds import BUILTIN_KINDS
from sandbox.k8s.objects import copy_json, encode_json
from sandbox.k8s.store import ObjectStore

PODS = BUILTIN_KINDS[("", "v1", "pods")]
NAMESPACES = BUILTIN_KINDS[("", "v1", "namespaces")]


def pod(name: str, phase: str) -> dict:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"nodeName": "n1"}, "status": {"phase": phase}}


def test_an_encoding_is_the_objects_json_and_a_write_renews_it() -> None:
    store = ObjectStore()
    stored = store.insert(PODS, pod("p", "Pending"), [])
    [encoded], last, more = store.encoded_page(PODS, None)
    assert (encoded, last, more) == (encode_json(stored), ("default", "p"), False)
    assert store.encoded_page(PODS, None)[0][0] is encoded  # encoded once

    store.replace(PODS, stored, pod("p", "Running"), [])
    assert json.loads(store.encoded_page(PODS, None)[0][0])["status"]["phase"] == "Running"
    assert json.loads(store.encoded_page(PODS, "default", fields=[])[0][0])["status"]["phase"] == "Running"


def test_a_write_keeps_the_order_and_renews_only_its_own_encoding() -> None:
    """A replace takes its object's place in the ordered bucket (no re-sort of a 125,000-pod bucket); the other
    objects' encodings stay."""
    store = ObjectStore()
    for name in ("c", "a", "b"):
        store.insert(PODS, pod(name, "Pending"), [])
    before, _, _ = store.encoded_page(PODS, None)
    order = store._ordered[PODS.storage]
    store.replace(PODS, store.require(PODS, "default", "b"), pod("b", "Running"), [])
    after, _, _ = store.encoded_page(PODS, None)
    assert store._ordered[PODS.storage] is order
    assert [json.loads(body)["metadata"]["name"] for body in after] == ["a", "b", "c"]
    assert after[0] is before[0] and after[2] is before[2]
    assert json.loads(after[1])["status"]["phase"] == "Running"


def test_a_page_after_a_key_with_a_limit() -> None:
    store = ObjectStore()
    for name in ("a", "b", "c", "d"):
        store.insert(PODS, pod(name, "Pending"), [])
    bodies, last, more = store.encoded_page(PODS, None, after=("default", "a"), limit=2)
    assert ([json.loads(body)["metadata"]["name"] for body in bodies], last, more) == (
        ["b", "c"],
        ("default", "c"),
        True,
    )
    assert store.encoded_page(PODS, None, after=("default", "c"), limit=2)[1:] == (("default", "d"), False)


def test_a_removed_object_leaves_the_list() -> None:
    store = ObjectStore()
    store.insert(PODS, pod("p", "Pending"), [])
    store.encoded_page(PODS, None)
    store.remove(PODS.storage, ("default", "p"), [])
    assert store.encoded_page(PODS, None) == ([], None, False)


def test_a_key_that_comes_or_goes_takes_or_leaves_its_place_and_the_others_keep_their_encodings() -> None:
    """A create or delete shifts the ordered bucket (no re-sort of a 125,000-pod bucket, no encoding made again)."""
    store = ObjectStore()
    for name in ("a", "c"):
        store.insert(PODS, pod(name, "Pending"), [])
    before, _, _ = store.encoded_page(PODS, None)
    store.insert(PODS, pod("b", "Pending"), [])
    store.insert(PODS, pod("d", "Pending"), [])
    store.remove(PODS.storage, ("default", "a"), [])
    after, last, more = store.encoded_page(PODS, None, limit=2)
    assert ([json.loads(body)["metadata"]["name"] for body in after], last, more) == (
        ["b", "c"],
        ("default", "c"),
        True,
    )
    assert after[1] is before[1]
    assert [json.loads(body)["metadata"]["name"] for body in store.encoded_page(PODS, "default")[0]] == ["b", "c", "d"]


class _Seen:
    """A label requirement that matches everything and remembers what it was shown."""

    def __init__(self) -> None:
        self.shown: list[dict] = []

    def matches(self, labels: dict) -> bool:
        self.shown.append(labels)
        return True


def test_a_namespaces_list_looks_only_at_its_own_keys() -> None:
    store = ObjectStore()
    for namespace in ("a", "b", "c"):
        store.insert(NAMESPACES, {"metadata": {"name": namespace}}, [])
        for name in ("x", "y", "z"):
            obj = {**pod(name, "Pending"), "metadata": {"name": name, "namespace": namespace, "labels": {"n": name}}}
            store.insert(PODS, obj, [])
    seen = _Seen()
    bodies, last, more = store.encoded_page(PODS, "b", labels=[seen], after=("b", "x"), limit=1)  # type: ignore[list-item]
    assert ([json.loads(body)["metadata"]["name"] for body in bodies], last, more) == (["y"], ("b", "y"), True)
    assert seen.shown == [{"n": "y"}, {"n": "z"}]
    assert [o["metadata"]["name"] for o in store.select(PODS, "c")] == ["x", "y", "z"]
    assert store.select(PODS, "d") == []


class Phase(StrEnum):
    RUNNING = "Running"


def test_a_copy_is_equal_and_shares_nothing_with_its_original() -> None:
    original = {"metadata": {"labels": {"a": "b"}}, "spec": {"items": [{"n": 1, "x": 1.5, "on": True, "none": None}]}}
    copied = copy_json(original)
    assert copied == original
    copied["metadata"]["labels"]["a"] = "changed"
    copied["spec"]["items"][0]["n"] = 2
    copied["spec"]["items"].append({})
    assert original == {
        "metadata": {"labels": {"a": "b"}},
        "spec": {"items": [{"n": 1, "x": 1.5, "on": True, "none": None}]},
    }


def test_a_value_marshal_cannot_write_is_still_copied_deeply_with_its_type() -> None:
    at = datetime(2026, 1, 2, tzinfo=UTC)
    original = {"status": {"phase": Phase.RUNNING, "since": at, "nodes": ["a"]}}
    copied = copy_json(original)
    assert copied == original and type(copied["status"]["phase"]) is Phase and copied["status"]["since"] == at
    copied["status"]["nodes"].append("b")
    assert original["status"]["nodes"] == ["a"]
