"""One emulated cluster's objects and the API server's write semantics over them.

What belongs here: which kinds the cluster serves (built-in plus its CRDs), server-set fields (uid,
resourceVersion, generation, creationTimestamp), defaults on create, name validation, the status
subresource's ownership of ``status``, merge patches and server-side apply, cascading deletes (a namespace's
contents, a CRD's custom objects) and pod logs. Every write reports its watch-style events into the list it is
given. Not thread-safe by itself: :class:`sandbox.k8s.emulator.KubernetesEmulator` holds the lock.

Deliberate simplifications: no finalizers or graceful deletion (deletes are immediate and cascade at once), no
field-ownership conflicts in server-side apply, no validation beyond object names and CRD basics.
"""

from __future__ import annotations

import bisect
import copy
import uuid
from collections.abc import Sequence
from typing import Any

from sandbox.k8s.apply import (
    MERGE_PATCH,
    drop_nulls,
    manager_entry,
    merge_patch,
    record_manager,
    strategic_merge_patch,
)
from sandbox.k8s.errors import ApiError, bad_request, conflict, details, invalid, not_found
from sandbox.k8s.kinds import (
    BUILTIN_KINDS,
    CRDS,
    NAME_RULES,
    NAMESPACE_KIND,
    NAMESPACES,
    PODS,
    Kind,
    KindKey,
    StorageKey,
    crd_kinds,
    crd_problems,
    crd_storage,
)
from sandbox.k8s.objects import ObjectKey, body_fields, encode_json, now, object_body, object_key
from sandbox.k8s.selectors import FieldRequirement, LabelRequirement

JsonObject = dict[str, Any]
NODE_NAME = ("spec", "nodeName")
NAMESPACE = ("metadata", "namespace")
Event = tuple[str, JsonObject]  # ("ADDED" | "MODIFIED" | "DELETED", a copy of the object)

INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
_PROTECTED_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


class ObjectStore:
    """The objects of one cluster, keyed by storage bucket and (namespace, name)."""

    def __init__(self) -> None:
        self._crd_kinds: dict[KindKey, Kind] = {}
        self._objects: dict[StorageKey, dict[ObjectKey, JsonObject]] = {}
        # Each bucket's keys in order, kept until a key comes or goes, so pages of a large list cost their size.
        self._ordered: dict[StorageKey, list[ObjectKey]] = {}
        # Pods by spec.nodeName, as the API server's own index answers `spec.nodeName=` without a scan.
        self._pods_by_node: dict[str, set[ObjectKey]] = {}
        # Each stored object's JSON by served version, encoded on its first read after a write (the API server's
        # watch cache keeps serializations the same way), so a list of many objects costs a join, not an encoding.
        self._encoded: dict[tuple[StorageKey, ObjectKey], dict[str, tuple[JsonObject, bytes]]] = {}
        self.revision = 0
        self.logs: dict[ObjectKey, str] = {}
        for name in INITIAL_NAMESPACES:
            namespace = {"metadata": {"name": name}}
            _initialize(NAMESPACE_KIND, namespace)
            self.insert(NAMESPACE_KIND, namespace, [])

    # -- kinds

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

    # -- reads

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

    def encoded(self, kind: Kind, obj: JsonObject) -> bytes:
        """A stored object as JSON served at ``kind``'s version; encoded again only once a write replaced it."""
        by_version = self._encoded.setdefault((kind.storage, object_key(obj)), {})
        cached = by_version.get(kind.api_version)
        if cached is not None and cached[0] is obj:
            return cached[1]
        served = obj if obj["apiVersion"] == kind.api_version else {**obj, "apiVersion": kind.api_version}
        body = encode_json(served)
        by_version[kind.api_version] = (obj, body)
        return body

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
        bucket = self._objects.get(kind.storage, {})
        keys = self._candidates(kind, fields)
        # Namespace requirements are answered from the key, before the object is looked at.
        in_namespace = [requirement for requirement in fields if requirement.path == NAMESPACE]
        fields = [requirement for requirement in fields if requirement.path != NAMESPACE]
        start = bisect.bisect_right(keys, after) if after else 0
        if namespace is None and not in_namespace and not labels and not fields:
            # Nothing to match: the page is a slice of the ordered keys.
            page = keys[start : start + limit] if limit is not None else keys[start:]
            return [bucket[key] for key in page], limit is not None and start + limit < len(keys)
        found: list[JsonObject] = []
        for key in keys[start:]:
            if (namespace is not None and key[0] != namespace) or not all(
                (key[0] == requirement.value) == requirement.equal for requirement in in_namespace
            ):
                continue
            obj = bucket[key]
            if all(requirement.matches(obj["metadata"].get("labels") or {}) for requirement in labels) and all(
                requirement.matches(obj) for requirement in fields
            ):
                if limit is not None and len(found) == limit:
                    return found, True
                found.append(obj)
        return found, False

    def _candidates(self, kind: Kind, fields: Sequence[FieldRequirement]) -> list[ObjectKey]:
        """The keys a selection must look at, in order: a pod list with `spec.nodeName=` only that node's pods."""
        if kind.storage == PODS:
            for requirement in fields:
                if requirement.equal and requirement.path == NODE_NAME:
                    return sorted(self._pods_by_node.get(requirement.value, ()))
        return self._keys(kind.storage)

    def _index(self, storage: StorageKey, key: ObjectKey, old: JsonObject | None, new: JsonObject | None) -> None:
        """Keep the pods-by-node index in step with a write of ``key`` (``old`` before it, ``new`` after)."""
        if storage != PODS:
            return
        if old is not None:
            self._pods_by_node.get(_node_name(old), set()).discard(key)
        if new is not None:
            self._pods_by_node.setdefault(_node_name(new), set()).add(key)

    def _keys(self, storage: StorageKey) -> list[ObjectKey]:
        if storage not in self._ordered:
            self._ordered[storage] = sorted(self._objects.get(storage, {}))
        return self._ordered[storage]

    # -- primitive writes (no API validation)

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
        self._ordered.pop(kind.storage, None)
        self._index(kind.storage, object_key(obj), None, obj)
        events.append(("ADDED", copy.deepcopy(obj)))
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
        self._index(kind.storage, object_key(new), live, new)
        events.append(("MODIFIED", copy.deepcopy(new)))
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
        self._encoded.pop((storage, key), None)
        self._ordered.pop(storage, None)
        self._index(storage, key, obj, None)
        events.append(("DELETED", copy.deepcopy(obj)))
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

    # -- API writes

    def create(self, kind: Kind, namespace: str | None, body: Any, events: list[Event]) -> JsonObject:
        obj = object_body(body)
        meta = obj["metadata"]
        _check_identity(kind, meta, namespace, None)
        if kind.namespaced:
            self.require(NAMESPACE_KIND, None, namespace or "")
        name = meta.get("name")
        if not name:
            raise invalid(kind, "", [("metadata.name", "Required value: name is required")])
        rule = NAME_RULES[kind.name_rule]
        if not isinstance(name, str) or len(name) > rule.max_length or not rule.pattern.fullmatch(name):
            raise invalid(kind, str(name), [("metadata.name", f'Invalid value: "{name}": {rule.message}')])
        if kind.storage == CRDS and (problems := crd_problems(obj)):
            raise invalid(kind, name, problems)
        if self.get(kind, namespace, name) is not None:
            raise ApiError(409, "AlreadyExists", f'{kind.resource} "{name}" already exists', details(kind, name))
        for field in ("uid", "resourceVersion", "creationTimestamp", "generation", "deletionTimestamp"):
            meta.pop(field, None)
        _initialize(kind, obj)
        return self.insert(kind, obj, events)

    def patch(
        self,
        kind: Kind,
        namespace: str | None,
        name: str,
        content_type: str,
        patch: Any,
        status_only: bool,
        events: list[Event],
    ) -> JsonObject:
        """A merge patch (``content_type`` MERGE_PATCH) or a strategic merge patch (anything else)."""
        live = self.require(kind, namespace, name)
        if not isinstance(patch, dict):
            raise bad_request("a merge patch must be a JSON object")
        merge = merge_patch if content_type == MERGE_PATCH else strategic_merge_patch
        candidate = merge(live, patch)
        version = candidate["metadata"].get("resourceVersion") if isinstance(candidate.get("metadata"), dict) else None
        if version and str(version) != live["metadata"]["resourceVersion"]:
            raise conflict(kind, name)
        return self.replace(kind, live, self._compose(kind, live, candidate, status_only), events)

    def apply(
        self,
        kind: Kind,
        namespace: str | None,
        name: str,
        applied: Any,
        manager: str,
        status_only: bool,
        events: list[Event],
    ) -> tuple[JsonObject, bool]:
        """Server-side apply; returns the stored object and whether it was created."""
        obj = drop_nulls(object_body(applied))
        if obj.get("apiVersion") != kind.api_version or obj.get("kind") != kind.kind:
            raise bad_request(f"an apply patch must have apiVersion {kind.api_version} and kind {kind.kind}")
        meta = obj["metadata"]
        _check_identity(kind, meta, namespace, name)
        meta.pop("managedFields", None)
        entry = manager_entry(manager, kind.api_version, status_only)
        live = self.get(kind, namespace, name)
        if live is None:
            if status_only:
                raise not_found(kind, name)
            meta["managedFields"] = [entry]
            return self.create(kind, namespace, obj, events), True
        candidate = strategic_merge_patch(live, {"status": obj.get("status", {})} if status_only else obj)
        new = self._compose(kind, live, candidate, status_only)
        record_manager(live, new, entry)
        return self.replace(kind, live, new, events), False

    def delete(self, kind: Kind, namespace: str | None, name: str, events: list[Event]) -> JsonObject:
        live = self.require(kind, namespace, name)
        if kind.storage == NAMESPACES and name in _PROTECTED_NAMESPACES:
            message = f'namespaces "{name}" is forbidden: this namespace may not be deleted'
            raise ApiError(403, "Forbidden", message, details(kind, name))
        return self.remove(kind.storage, object_key(live), events)

    @staticmethod
    def _compose(kind: Kind, live: JsonObject, candidate: Any, status_only: bool) -> JsonObject:
        """The object a write stores: the status subresource owns status, the main resource the rest."""
        if not isinstance(candidate, dict) or not isinstance(candidate.get("metadata"), dict):
            raise ApiError(422, "Invalid", "the updated object must have an object as its metadata")
        new = copy.deepcopy(live if status_only else candidate)
        source = candidate if status_only else live
        if status_only or kind.status_subresource:
            if "status" in source:
                new["status"] = copy.deepcopy(source["status"])
            else:
                new.pop("status", None)
        if "managedFields" not in new["metadata"] and "managedFields" in live["metadata"]:
            new["metadata"]["managedFields"] = copy.deepcopy(live["metadata"]["managedFields"])
        if kind.storage == CRDS and (problems := crd_problems(new)):
            raise invalid(kind, live["metadata"]["name"], problems)
        return new


def _node_name(pod: JsonObject | None) -> str:
    """A pod's spec.nodeName as a field selector sees it ("" when unscheduled)."""
    return str(((pod or {}).get("spec") or {}).get("nodeName") or "")


def _check_identity(kind: Kind, meta: JsonObject, namespace: str | None, name: str | None) -> None:
    """The body's name and namespace agree with the URL's (and fill in where the body omits them)."""
    if name is not None and meta.setdefault("name", name) != name:
        raise bad_request(f"the object name {meta['name']!r} does not match the URL's name {name!r}")
    if not kind.namespaced:
        meta.pop("namespace", None)
    elif meta.setdefault("namespace", namespace) != namespace:
        raise bad_request("the namespace of the provided object does not match the namespace sent on the request")


def _initialize(kind: Kind, obj: JsonObject) -> None:
    """Server-side defaults on create; the status of a kind with a status subresource is the server's."""
    if kind.status_subresource:
        obj.pop("status", None)
    if kind.storage == PODS:
        obj["status"] = {"phase": "Pending"}
    elif kind.storage == NAMESPACES:
        obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
        obj["status"] = {"phase": "Active"}
    elif kind.storage == CRDS:
        spec, timestamp = obj["spec"], now()
        obj["status"] = {
            "acceptedNames": copy.deepcopy(spec["names"]),
            "conditions": [
                {
                    "type": "NamesAccepted",
                    "status": "True",
                    "lastTransitionTime": timestamp,
                    "reason": "NoConflicts",
                    "message": "no conflicts found",
                },
                {
                    "type": "Established",
                    "status": "True",
                    "lastTransitionTime": timestamp,
                    "reason": "InitialNamesAccepted",
                    "message": "the initial names have been accepted",
                },
            ],
            "storedVersions": [version["name"] for version in spec["versions"] if version.get("storage")],
        }
