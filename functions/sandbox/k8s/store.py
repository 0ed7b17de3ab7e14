"""One emulated cluster's objects and the API server's write semantics over them.

What belongs here: name validation and defaults on create, the status subresource's ownership of ``status``, merge
patches and server-side apply, protected namespaces on delete, and the namespaces a new cluster starts with. Storage,
reads, server-set fields, cascading deletes and pod logs are :class:`sandbox.k8s.buckets.Buckets`'. Every write
reports its watch-style events into the list it is given. Not thread-safe by itself:
:class:`sandbox.k8s.emulator.KubernetesEmulator` holds the lock.

Deliberate simplifications: no finalizers or graceful deletion (deletes are immediate and cascade at once), no
field-ownership conflicts in server-side apply, no validation beyond object names and CRD basics.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any

from sandbox.k8s.apply import (
    MERGE_PATCH,
    drop_nulls,
    manager_entry,
    merge_patch,
    record_manager,
    strategic_merge_patch,
)
from sandbox.k8s.buckets import Buckets, Event, JsonObject
from sandbox.k8s.errors import ApiError, bad_request, conflict, details, invalid, not_found
from sandbox.k8s.kinds import CRDS, NAME_RULES, NAMESPACE_KIND, NAMESPACES, PODS, SECRETS, Kind, crd_problems
from sandbox.k8s.objects import copy_json, now, object_body, object_key

INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
# A mutating admission webhook: sees (the store, the kind, the object to create), may change it or raise ApiError.
Webhook = Callable[["ObjectStore", Kind, JsonObject], None]
_PROTECTED_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})


class ObjectStore(Buckets):
    """A cluster's objects as the API server writes them."""

    def __init__(self, webhooks: Sequence[Webhook] = ()) -> None:
        super().__init__()
        self._webhooks = webhooks
        for name in INITIAL_NAMESPACES:
            namespace = {"metadata": {"name": name}}
            _initialize(NAMESPACE_KIND, namespace)
            self.insert(NAMESPACE_KIND, namespace, [])

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
        for webhook in self._webhooks:
            webhook(self, kind, obj)
        _initialize(kind, obj)
        _fold_string_data(kind, obj)
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
        new = copy_json(live if status_only else candidate)
        _fold_string_data(kind, new)
        source = candidate if status_only else live
        if status_only or kind.status_subresource:
            if "status" in source:
                new["status"] = copy_json(source["status"])
            else:
                new.pop("status", None)
        if "managedFields" not in new["metadata"] and "managedFields" in live["metadata"]:
            new["metadata"]["managedFields"] = copy_json(live["metadata"]["managedFields"])
        if kind.storage == CRDS and (problems := crd_problems(new)):
            raise invalid(kind, live["metadata"]["name"], problems)
        return new


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
            "acceptedNames": copy_json(spec["names"]),
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


def _fold_string_data(kind: Kind, obj: JsonObject) -> None:
    """A Secret's `stringData` is written into `data`, base64-encoded, and never stored or returned
    (https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/secret-v1/)."""
    if kind.storage != SECRETS or "stringData" not in obj:
        return
    plain = obj.pop("stringData") or {}
    if not isinstance(plain, dict) or not all(isinstance(value, str) for value in plain.values()):
        raise bad_request("stringData must be an object of strings")
    data = obj.get("data") or {}
    obj["data"] = {**data, **{key: base64.b64encode(value.encode()).decode() for key, value in plain.items()}}
