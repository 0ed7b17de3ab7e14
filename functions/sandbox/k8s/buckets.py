"""One emulated cluster's stored objects, before any API rule: buckets by storage key (kept in key order, so a page
of a large list costs its size), the pods-by-node index, each object's served encodings, the kinds served (built-in
plus the CRDs stored), reads and selection, and the primitive writes that set the server's fields (uid,
resourceVersion, generation, creationTimestamp), cascade deletes (a namespace's contents, a CRD's custom objects) and
report their watch-style events into the list they are given.

The API server's rules over writes are :class:`sandbox.k8s.store.ObjectStore`'s. Not thread-safe by itself:
:class:`sandbox.k8s.emulator.KubernetesEmulator` holds the lock.
"""

from __future__ import annotations

import bisect
import uuid
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from sandbox.k8s.errors import not_found
from sandbox.k8s.kinds import (
    BUILTIN_KINDS,
    CRDS,
    NAMESPACES,
    PODS,
    Kind,
    KindKey,
    StorageKey,
    crd_kinds,
    crd_storage,
)
from sandbox.k8s.objects import ObjectKey, body_fields, copy_json, now, object_key
from sandbox.k8s.ordering import OrderedBucket
from sandbox.k8s.selectors import FieldRequirement, LabelRequirement

JsonObject = dict[str, Any]
NODE_NAME = ("spec", "nodeName")
NAMESPACE = ("metadata", "namespace")
Event = tuple[str, JsonObject]  # ("ADDED" | "MODIFIED" | "DELETED", a copy of the object)


class Buckets:
    """The objects of one cluster, keyed by storage bucket and (namespace, name)."""

    def __init__(self) -> None:
        self._crd_kinds: dict[KindKey, Kind] = {}
        self._objects: dict[StorageKey, dict[ObjectKey, JsonObject]] = {}
        # Each listed bucket's keys in order with their objects and encodings, kept in step with every write, so a
        # page of a large list costs its size and a write costs no re-sort nor other objects' encodings.
        self._ordered: dict[StorageKey, OrderedBucket] = {}
        # Pods by spec.nodeName, as the API server's own index answers `spec.nodeName=` without a scan.
        self._pods_by_node: dict[str, set[ObjectKey]] = {}
        self.revision = 0
        self.logs: dict[ObjectKey, str] = {}

    def kinds(self) -> list[Kind]:
        return list({**BUILTIN_KINDS, **self._crd_kinds}.values())

    def kind(self, group: str, version: str, plural: str) -> Kind | None:
        key = (group, version, plural)
        return self._crd_kinds.get(key) or BUILTIN_KINDS.get(key)

    def served(self, group: str, version: str, plural: str) -> Kind:
        """The kind at ``group/version/plural``; LookupError when the cluster does not serve it."""
        kind = self.kind(group, version, plural)
        if kind is None:
            raise LookupError(f"unknown resource {plural!r} in {group or 'core'}/{version}")
        return kind

    def kind_for(self, api_version: str, kind_name: str) -> Kind | None:
        return next((k for k in self.kinds() if k.api_version == api_version and k.kind == kind_name), None)

    def _sync_crd_kinds(self) -> None:
        crds = self._objects.get(CRDS, {}).values()
        self._crd_kinds = {kind.key: kind for crd in crds for kind in crd_kinds(crd)}

    def count(self) -> int:
        return sum(len(bucket) for bucket in self._objects.values())

    def get(self, kind: Kind, namespace: str | None, name: str) -> JsonObject | None:
        key = ((namespace or "") if kind.namespaced else "", name)
        return self._objects.get(kind.storage, {}).get(key)

    def require(self, kind: Kind, namespace: str | None, name: str) -> JsonObject:
        obj = self.get(kind, namespace, name)
        if obj is None:
            raise not_found(kind, name)
        return obj

    def select(
        self,
        kind: Kind,
        namespace: str | None,
        labels: Sequence[LabelRequirement] = (),
        fields: Sequence[FieldRequirement] = (),
    ) -> list[JsonObject]:
        """Live objects of ``kind`` in ``namespace`` (None: everywhere) matching the selectors, by key."""
        return self.select_page(kind, namespace, labels, fields)[0]

    def select_page(
        self,
        kind: Kind,
        namespace: str | None,
        labels: Sequence[LabelRequirement] = (),
        fields: Sequence[FieldRequirement] = (),
        after: ObjectKey | None = None,
        limit: int | None = None,
    ) -> tuple[list[JsonObject], bool]:
        """Up to ``limit`` matching objects whose key follows ``after``, by key, and whether more match."""
        order, positions, more = self._page(kind, namespace, labels, fields, after, limit)
        return [order.objects[position] for position in positions], more

    def encoded_page(
        self,
        kind: Kind,
        namespace: str | None,
        labels: Sequence[LabelRequirement] = (),
        fields: Sequence[FieldRequirement] = (),
        after: ObjectKey | None = None,
        limit: int | None = None,
    ) -> tuple[list[bytes], ObjectKey | None, bool]:
        """:meth:`select_page`'s objects as JSON served at ``kind``'s version (each encoded once until a write
        replaces it), the last one's key (None for an empty page), and whether more match."""
        order, positions, more = self._page(kind, namespace, labels, fields, after, limit)
        last = order.keys[positions[-1]] if positions else None
        return order.encoded(kind.api_version, positions), last, more

    def _page(
        self,
        kind: Kind,
        namespace: str | None,
        labels: Sequence[LabelRequirement],
        fields: Sequence[FieldRequirement],
        after: ObjectKey | None,
        limit: int | None,
    ) -> tuple[OrderedBucket, Sequence[int], bool]:
        """The bucket in order, the positions of a page's objects in it, and whether more match."""
        order = self._order(kind.storage)
        keys, objects = order.keys, order.objects
        start = bisect.bisect_right(keys, after) if after else 0
        if namespace is None and not labels and not fields:
            # Nothing to match: the page is a slice of the ordered bucket.
            stop = len(keys) if limit is None else min(start + limit, len(keys))
            return order, range(start, stop), stop < len(keys)
        # Namespace requirements are answered from the key, before the object is looked at.
        in_namespace = [requirement for requirement in fields if requirement.path == NAMESPACE]
        fields = [requirement for requirement in fields if requirement.path != NAMESPACE]
        found: list[int] = []
        for position in self._candidates(kind, namespace, fields, order, start):
            if not all((keys[position][0] == requirement.value) == requirement.equal for requirement in in_namespace):
                continue
            obj = objects[position]
            if all(requirement.matches(obj["metadata"].get("labels") or {}) for requirement in labels) and all(
                requirement.matches(obj) for requirement in fields
            ):
                if limit is not None and len(found) == limit:
                    return order, found, True
                found.append(position)
        return order, found, False

    def _candidates(
        self, kind: Kind, namespace: str | None, fields: Sequence[FieldRequirement], order: OrderedBucket, start: int
    ) -> Sequence[int]:
        """The positions from ``start`` a selection must look at, in order: only the namespace's (together in key
        order) when it names one, and of a pod list with `spec.nodeName=` only that node's pods'."""
        stop = len(order.keys)
        if namespace is not None:
            start = max(start, bisect.bisect_left(order.keys, namespace, key=itemgetter(0)))
            stop = bisect.bisect_right(order.keys, namespace, lo=start, key=itemgetter(0))
        if kind.storage == PODS:
            for requirement in fields:
                if requirement.equal and requirement.path == NODE_NAME:
                    on_node = sorted(order.position(key) for key in self._pods_by_node.get(requirement.value, ()))
                    return on_node[bisect.bisect_left(on_node, start) : bisect.bisect_left(on_node, stop)]
        return range(start, stop)

    def _index(self, storage: StorageKey, key: ObjectKey, old: JsonObject | None, new: JsonObject | None) -> None:
        """Keep the pods-by-node index in step with a write of ``key`` (``old`` before it, ``new`` after)."""
        if storage != PODS:
            return
        if old is not None:
            self._pods_by_node.get(_node_name(old), set()).discard(key)
        if new is not None:
            self._pods_by_node.setdefault(_node_name(new), set()).add(key)

    def _order(self, storage: StorageKey) -> OrderedBucket:
        if storage not in self._ordered:
            self._ordered[storage] = OrderedBucket(self._objects.get(storage, {}))
        return self._ordered[storage]

    def _next_revision(self) -> str:
        self.revision += 1
        return str(self.revision)

    def insert(self, kind: Kind, obj: JsonObject, events: list[Event]) -> JsonObject:
        meta = obj["metadata"]
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("creationTimestamp", now())
        meta.setdefault("generation", 1)
        meta["resourceVersion"] = self._next_revision()
        obj["apiVersion"], obj["kind"] = kind.api_version, kind.kind
        self._objects.setdefault(kind.storage, {})[object_key(obj)] = obj
        if (order := self._ordered.get(kind.storage)) is not None:
            order.insert(object_key(obj), obj)
        self._index(kind.storage, object_key(obj), None, obj)
        events.append(("ADDED", copy_json(obj)))
        if kind.storage == CRDS:
            self._sync_crd_kinds()
        return obj

    def replace(self, kind: Kind, live: JsonObject, new: JsonObject, events: list[Event]) -> JsonObject:
        """Store ``new`` over ``live``, keeping identity fields; unchanged content is a no-op."""
        meta, live_meta = new["metadata"], live["metadata"]
        for field in ("uid", "creationTimestamp", "name", "generation", "resourceVersion"):
            meta[field] = live_meta[field]
        if "namespace" in live_meta:
            meta["namespace"] = live_meta["namespace"]
        else:
            meta.pop("namespace", None)
        new["apiVersion"], new["kind"] = live["apiVersion"], live["kind"]
        if new == live:
            return live
        if body_fields(new) != body_fields(live):
            meta["generation"] = live_meta["generation"] + 1
        meta["resourceVersion"] = self._next_revision()
        self._objects[kind.storage][object_key(new)] = new
        if (order := self._ordered.get(kind.storage)) is not None:
            order.replace(object_key(new), new)
        self._index(kind.storage, object_key(new), live, new)
        events.append(("MODIFIED", copy_json(new)))
        if kind.storage == CRDS:
            self._sync_crd_kinds()
        return new

    def remove(self, storage: StorageKey, key: ObjectKey, events: list[Event]) -> JsonObject:
        """Delete one object and whatever it owns (a namespace's contents, a CRD's custom objects)."""
        obj = self._objects[storage][key]
        if storage == NAMESPACES:
            for other, bucket in list(self._objects.items()):
                for child in [child for child in bucket if child[0] == key[1]]:
                    self.remove(other, child, events)
        elif storage == CRDS and (served := crd_storage(obj)):
            for child in list(self._objects.get(served, {})):
                self.remove(served, child, events)
        del self._objects[storage][key]
        if (order := self._ordered.get(storage)) is not None:
            order.remove(key)
        self._index(storage, key, obj, None)
        events.append(("DELETED", copy_json(obj)))
        if storage == PODS:
            self.logs.pop(key, None)
        elif storage == CRDS:
            self._sync_crd_kinds()
        return obj

    def put(self, obj: JsonObject, events: list[Event]) -> tuple[Kind, JsonObject]:
        """Upsert routed by apiVersion and kind, without API validation (for simulators and tests)."""
        kind = self.kind_for(obj.get("apiVersion", ""), obj.get("kind", ""))
        if kind is None:
            raise LookupError(f"unknown kind {obj.get('kind')!r} in {obj.get('apiVersion')!r}")
        meta = obj.get("metadata")
        if not isinstance(meta, dict) or not meta.get("name"):
            raise ValueError("put needs an object with metadata.name")
        if kind.namespaced:
            meta.setdefault("namespace", "default")
        else:
            meta.pop("namespace", None)
        live = self.get(kind, meta.get("namespace"), meta["name"])
        return kind, self.insert(kind, obj, events) if live is None else self.replace(kind, live, obj, events)


def _node_name(pod: JsonObject | None) -> str:
    """A pod's spec.nodeName as a field selector sees it ("" when unscheduled)."""
    return str(((pod or {}).get("spec") or {}).get("nodeName") or "")
