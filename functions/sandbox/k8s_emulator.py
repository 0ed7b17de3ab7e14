"""In-process emulation of the Kubernetes API server, for the local sandbox that has no real EKS cluster.

Production code talks to clusters with the official ``kubernetes`` client; in the sandbox it is pointed at
the Starlette app built here, which serves many clusters at once, each under its own path prefix
(``/{cluster}/api/v1/...``) and with its own object store. What belongs here is API-server behaviour only:
EKS-style bearer-token authentication, discovery, generic CRUD over plain-dict objects, label/field
selectors and pagination, the four patch flavours (merge, strategic, JSON, server-side apply), the status
subresource, CustomResourceDefinition registration and pod logs. Simulated controllers (schedulers,
kubelets, operators) live elsewhere and drive the store through :meth:`KubernetesEmulator.store` and
:meth:`KubernetesEmulator.add_listener`.

Deliberate simplifications: no watch, no finalizers or graceful deletion (deletes are immediate and
cascade at once), no field-ownership conflicts in server-side apply, no validation beyond object names
and CRD basics, and ``continue`` tokens resume after the last returned key rather than from a snapshot.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import logging
import random
import re
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar
from urllib.parse import parse_qs, urlsplit

import yaml
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

__all__ = ["ClusterStore", "KubernetesEmulator"]

JsonObject = dict[str, Any]
Listener = Callable[[str, str, JsonObject], None]
Authorizer = Callable[[str, str], bool]

_LOG = logging.getLogger(__name__)
_T = TypeVar("_T")
_Event = tuple[str, JsonObject]
_KindKey = tuple[str, str, str]  # (group, version, plural)
_StorageKey = tuple[str, str]  # (group, plural): every served version of a kind shares one bucket
_ObjectKey = tuple[str, str]  # (namespace or "" for cluster-scoped, name)

_VERSION_INFO: JsonObject = {
    "major": "1",
    "minor": "34",
    "gitVersion": "v1.34.0-eks",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-09-01T00:00:00Z",
    "goVersion": "go1.24.6",
    "compiler": "gc",
    "platform": "linux/amd64",
}
_TOKEN_PREFIX = "k8s-aws-v1."
_INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
_PROTECTED_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})
_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update"]
_NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

_MERGE_PATCH = "application/merge-patch+json"
_STRATEGIC_PATCH = "application/strategic-merge-patch+json"
_JSON_PATCH = "application/json-patch+json"
_APPLY_PATCH = "application/apply-patch+yaml"


class _NameRule(NamedTuple):
    pattern: re.Pattern[str]
    max_length: int
    message: str


_NAME_RULES = {
    "subdomain": _NameRule(
        re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"),
        253,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
        "and must start and end with an alphanumeric character",
    ),
    "label": _NameRule(
        re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"),
        63,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character",
    ),
    "dns1035": _NameRule(
        re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?"),
        63,
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
        "start with an alphabetic character, and end with an alphanumeric character",
    ),
    "path": _NameRule(
        re.compile(r"(?!\.\.?$)[^/%]+"),
        253,
        "may not be '.' or '..' and may not contain '/' or '%'",
    ),
}


@dataclass(frozen=True)
class _Kind:
    """One served resource: where it lives in the URL space and which API rules apply to it."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    status_subresource: bool = True
    name_rule: str = "subdomain"
    custom: bool = False  # served from a CRD: strategic merge patch is refused, updates need resourceVersion
    singular: str = ""

    @property
    def key(self) -> _KindKey:
        return (self.group, self.version, self.plural)

    @property
    def storage(self) -> _StorageKey:
        return (self.group, self.plural)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def resource(self) -> str:
        """The resource as API error messages name it, e.g. ``deployments.apps``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def qualified_kind(self) -> str:
        """The kind as validation messages name it, e.g. ``Deployment.apps``."""
        return f"{self.kind}.{self.group}" if self.group else self.kind

    def discovery(self) -> list[JsonObject]:
        """APIResource entries for this kind and its subresources."""
        base = {"namespaced": self.namespaced, "kind": self.kind}
        singular = self.singular or self.kind.lower()
        entries = [{"name": self.plural, "singularName": singular, **base, "verbs": _VERBS}]
        if self.status_subresource:
            entries.append(
                {
                    "name": f"{self.plural}/status",
                    "singularName": "",
                    **base,
                    "verbs": ["get", "patch", "update"],
                }
            )
        if self.storage == _PODS:
            entries.append({"name": "pods/log", "singularName": "", **base, "verbs": ["get"]})
        return entries


_PODS: _StorageKey = ("", "pods")
_NAMESPACES: _StorageKey = ("", "namespaces")
_CRDS: _StorageKey = ("apiextensions.k8s.io", "customresourcedefinitions")
_RETURNS_DELETED_OBJECT = frozenset({_PODS, _NAMESPACES, ("", "services")})

_NAMESPACE_KIND = _Kind("", "v1", "namespaces", "Namespace", namespaced=False, name_rule="label")
_POD_KIND = _Kind("", "v1", "pods", "Pod", namespaced=True)
_BUILTIN_KINDS: dict[_KindKey, _Kind] = {
    kind.key: kind
    for kind in (
        _NAMESPACE_KIND,
        _Kind("", "v1", "nodes", "Node", namespaced=False),
        _Kind("", "v1", "persistentvolumes", "PersistentVolume", namespaced=False),
        _POD_KIND,
        _Kind("", "v1", "services", "Service", namespaced=True, name_rule="dns1035"),
        _Kind("", "v1", "serviceaccounts", "ServiceAccount", namespaced=True, status_subresource=False),
        _Kind("", "v1", "configmaps", "ConfigMap", namespaced=True, status_subresource=False),
        _Kind("", "v1", "secrets", "Secret", namespaced=True, status_subresource=False),
        _Kind("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", namespaced=True),
        _Kind("", "v1", "events", "Event", namespaced=True, status_subresource=False),
        _Kind("", "v1", "endpoints", "Endpoints", namespaced=True, status_subresource=False),
        _Kind("apps", "v1", "deployments", "Deployment", namespaced=True),
        _Kind("apps", "v1", "daemonsets", "DaemonSet", namespaced=True),
        _Kind("apps", "v1", "statefulsets", "StatefulSet", namespaced=True),
        _Kind("apps", "v1", "replicasets", "ReplicaSet", namespaced=True),
        _Kind("batch", "v1", "jobs", "Job", namespaced=True),
        *(
            _Kind(
                "rbac.authorization.k8s.io",
                "v1",
                plural,
                kind,
                namespaced,
                status_subresource=False,
                name_rule="path",
            )
            for plural, kind, namespaced in (
                ("roles", "Role", True),
                ("rolebindings", "RoleBinding", True),
                ("clusterroles", "ClusterRole", False),
                ("clusterrolebindings", "ClusterRoleBinding", False),
            )
        ),
        _Kind(
            "apiextensions.k8s.io",
            "v1",
            "customresourcedefinitions",
            "CustomResourceDefinition",
            namespaced=False,
        ),
        _Kind(
            "storage.k8s.io",
            "v1",
            "storageclasses",
            "StorageClass",
            namespaced=False,
            status_subresource=False,
        ),
    )
}

# Field selectors beyond metadata.name/metadata.namespace, as the real server supports them per resource.
_FIELD_LABELS: dict[_StorageKey, frozenset[str]] = {
    _PODS: frozenset(
        {
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        }
    ),
    _NAMESPACES: frozenset({"status.phase"}),
    ("", "nodes"): frozenset({"spec.unschedulable"}),
    ("", "secrets"): frozenset({"type"}),
    ("", "events"): frozenset(
        {
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "reason",
            "type",
        }
    ),
    ("batch", "jobs"): frozenset({"status.successful"}),
}


# --------------------------------------------------------------------------------------------- errors


class _ApiError(Exception):
    """A failed request, rendered as a Kubernetes ``Status`` body."""

    def __init__(self, code: int, reason: str, message: str, details: JsonObject | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self) -> JsonObject:
        return {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            **({"details": self.details} if self.details else {}),
            "code": self.code,
        }


def _details(kind: _Kind, name: str) -> JsonObject:
    return {"name": name, **({"group": kind.group} if kind.group else {}), "kind": kind.plural}


def _bad_request(message: str) -> _ApiError:
    return _ApiError(400, "BadRequest", message)


def _not_found(kind: _Kind, name: str) -> _ApiError:
    return _ApiError(404, "NotFound", f'{kind.resource} "{name}" not found', _details(kind, name))


def _no_such_resource() -> _ApiError:
    return _ApiError(404, "NotFound", "the server could not find the requested resource")


def _method_not_allowed() -> _ApiError:
    return _ApiError(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
    )


def _unsupported_media(accepted: Iterable[str]) -> _ApiError:
    listed = ", ".join(accepted)
    return _ApiError(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - accepted media types include: {listed}",
    )


_CAUSE_REASONS = {
    "Required value": "FieldValueRequired",
    "Invalid value": "FieldValueInvalid",
    "Unsupported value": "FieldValueNotSupported",
}


def _invalid(kind: _Kind, name: str, causes: list[tuple[str, str]]) -> _ApiError:
    """422 Invalid from ``(field, detail)`` causes, formatted like the real server.

    Each detail starts with its error type (``Required value``, ``Invalid value``, ``Unsupported value``).
    """
    texts = [f"{field}: {detail}" for field, detail in causes]
    summary = texts[0] if len(texts) == 1 else f"[{', '.join(texts)}]"
    details = {
        **_details(kind, name),
        "kind": kind.kind,
        "causes": [
            {"reason": _CAUSE_REASONS[detail.split(":")[0]], "message": detail, "field": field}
            for field, detail in causes
        ],
    }
    return _ApiError(422, "Invalid", f'{kind.qualified_kind} "{name}" is invalid: {summary}', details)


# ------------------------------------------------------------------------------------------ selectors


@dataclass(frozen=True)
class _LabelRequirement:
    key: str
    operator: str  # one of "exists", "!", "in", "notin" ("=" is "in", "!=" is "notin")
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        if self.operator == "exists":
            return present
        if self.operator == "!":
            return not present
        if self.operator == "in":
            return present and labels[self.key] in self.values
        return not present or labels[self.key] not in self.values


_LABEL_KEY = r"[A-Za-z0-9][-A-Za-z0-9_./]*"
_LABEL_VALUE = r"[-A-Za-z0-9_.]*"
_SET_REQUIREMENT = re.compile(rf"({_LABEL_KEY})\s+(in|notin)\s*\(([^()]*)\)")
_EQUALITY_REQUIREMENT = re.compile(rf"({_LABEL_KEY})\s*(==|=|!=)\s*({_LABEL_VALUE})")
_EXISTS_REQUIREMENT = re.compile(rf"(!?)\s*({_LABEL_KEY})")
_FIELD_REQUIREMENT = re.compile(r"([A-Za-z0-9_.]+)\s*(==|!=|=)\s*(.*)")


def _parse_label_selector(text: str) -> list[_LabelRequirement]:
    """Parse a label selector string; raises ValueError when it is malformed."""
    if not text.strip():
        return []
    requirements = []
    for piece in re.split(r",(?![^()]*\))", text):
        piece = piece.strip()
        if match := _SET_REQUIREMENT.fullmatch(piece):
            values = frozenset(value.strip() for value in match[3].split(","))
            requirements.append(_LabelRequirement(match[1], match[2], values))
        elif match := _EQUALITY_REQUIREMENT.fullmatch(piece):
            requirements.append(
                _LabelRequirement(match[1], "notin" if match[2] == "!=" else "in", frozenset({match[3]}))
            )
        elif match := _EXISTS_REQUIREMENT.fullmatch(piece):
            requirements.append(_LabelRequirement(match[2], "!" if match[1] else "exists"))
        else:
            raise ValueError(f"unable to parse requirement: {piece!r}")
    return requirements


def _parse_field_selector(text: str, kind: _Kind) -> list[tuple[list[str], bool, str]]:
    """Parse a field selector into ``(path, must_equal, value)`` triples; raises ValueError."""
    if not text.strip():
        return []
    supported = {"metadata.name", "metadata.namespace"} | _FIELD_LABELS.get(kind.storage, frozenset())
    requirements = []
    for piece in text.split(","):
        match = _FIELD_REQUIREMENT.fullmatch(piece.strip())
        if not match:
            raise ValueError(f"invalid field selector: {piece!r}")
        if match[1] not in supported:
            raise ValueError(f'field label not supported: "{match[1]}"')
        requirements.append((match[1].split("."), match[2] != "!=", match[3].strip()))
    return requirements


def _field_value(obj: JsonObject, path: list[str]) -> str:
    value: Any = obj
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


# -------------------------------------------------------------------------------------------- patches


def _merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = _merge_patch(result.get(key), value)
    return result


def _is_named_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) and "name" in item for item in value)


def _strategic_merge_patch(target: Any, patch: Any) -> Any:
    """Merge patch, except that lists of objects keyed by ``name`` merge item by item.

    That covers what the product patches (containers, env, volumes, ports); an item carrying
    ``$patch: delete`` removes the item of that name.
    """
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        current = result.get(key, [])
        if value is None:
            result.pop(key, None)
        elif _is_named_list(value) and _is_named_list(current):
            result[key] = _merge_named_lists(current, value)
        else:
            result[key] = _strategic_merge_patch(result.get(key), value)
    return result


def _merge_named_lists(current: list[JsonObject], patch: list[JsonObject]) -> list[JsonObject]:
    merged = {item["name"]: item for item in current}
    deleted = set()
    for item in patch:
        if item.get("$patch") == "delete":
            deleted.add(item["name"])
        else:
            merged[item["name"]] = _strategic_merge_patch(merged.get(item["name"]), item)
    return [item for name, item in merged.items() if name not in deleted]


def _pointer(path: Any) -> list[str]:
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise _bad_request(f"invalid JSON pointer: {path!r}")
    return [token.replace("~1", "/").replace("~0", "~") for token in path.split("/")[1:]]


def _list_index(container: list[Any], token: str, *, allow_end: bool) -> int:
    if allow_end and token == "-":
        return len(container)
    if not token.isdigit() or int(token) > len(container) - (0 if allow_end else 1):
        raise ValueError(f"array index {token!r} out of range")
    return int(token)


def _resolve(doc: Any, tokens: list[str]) -> Any:
    for token in tokens:
        if isinstance(doc, dict) and token in doc:
            doc = doc[token]
        elif isinstance(doc, list):
            doc = doc[_list_index(doc, token, allow_end=False)]
        else:
            raise ValueError(f"path element {token!r} does not exist")
    return doc


def _pointer_add(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent = _resolve(doc, tokens[:-1])
    if isinstance(parent, list):
        parent.insert(_list_index(parent, tokens[-1], allow_end=True), value)
    elif isinstance(parent, dict):
        parent[tokens[-1]] = value
    else:
        raise TypeError(f"cannot add to a scalar at {tokens[-1]!r}")
    return doc


def _pointer_remove(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        raise ValueError("cannot remove the whole document")
    parent = _resolve(doc, tokens[:-1])
    if isinstance(parent, list):
        del parent[_list_index(parent, tokens[-1], allow_end=False)]
    elif isinstance(parent, dict) and tokens[-1] in parent:
        del parent[tokens[-1]]
    else:
        raise ValueError(f"path element {tokens[-1]!r} does not exist")
    return doc


def _json_patch(target: Any, operations: Any) -> Any:
    """RFC 6902 JSON patch (add, remove, replace, move, copy, test)."""
    if not isinstance(operations, list) or not all(isinstance(op, dict) for op in operations):
        raise _bad_request("a JSON patch must be a list of operation objects")
    doc = copy.deepcopy(target)
    for operation in operations:
        op, tokens = operation.get("op"), _pointer(operation.get("path"))
        try:
            if op in ("add", "replace", "test") and "value" not in operation:
                raise ValueError(f"{op} operation needs a value")
            if op == "add":
                doc = _pointer_add(doc, tokens, copy.deepcopy(operation["value"]))
            elif op == "remove":
                doc = _pointer_remove(doc, tokens)
            elif op == "replace":
                value = copy.deepcopy(operation["value"])
                doc = _pointer_add(_pointer_remove(doc, tokens), tokens, value) if tokens else value
            elif op == "test":
                if _resolve(doc, tokens) != operation["value"]:
                    raise ValueError(f"test failed at {operation['path']!r}")
            elif op in ("move", "copy"):
                source = _pointer(operation.get("from"))
                value = copy.deepcopy(_resolve(doc, source))
                doc = _pointer_add(_pointer_remove(doc, source) if op == "move" else doc, tokens, value)
            else:
                raise _bad_request(f"unknown JSON patch operation: {op!r}")
        except (ValueError, TypeError) as exc:
            message = f"the server rejected our request due to an error in our request: {exc}"
            raise _ApiError(422, "Invalid", message) from exc
    return doc


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _drop_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_drop_nulls(item) for item in value]
    return value


class _YamlLoader(yaml.SafeLoader):
    """Safe YAML loading that keeps timestamps as strings, so every document stays plain JSON."""


_YamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


# ------------------------------------------------------------------------------------- object helpers


_NON_GENERATION_FIELDS = frozenset({"apiVersion", "kind", "metadata", "status"})
_BOOKKEEPING_FIELDS = frozenset({"managedFields", "resourceVersion"})


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _object_key(obj: JsonObject) -> _ObjectKey:
    return (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])


def _present(kind: _Kind, obj: JsonObject) -> JsonObject:
    """A caller-owned copy of ``obj`` as served at ``kind``'s version."""
    return {**copy.deepcopy(obj), "apiVersion": kind.api_version, "kind": kind.kind}


def _body_fields(obj: JsonObject) -> JsonObject:
    """Everything whose change bumps ``metadata.generation``."""
    return {key: value for key, value in obj.items() if key not in _NON_GENERATION_FIELDS}


def _without_bookkeeping(obj: JsonObject) -> JsonObject:
    meta = {key: value for key, value in obj["metadata"].items() if key not in _BOOKKEEPING_FIELDS}
    return {**{key: value for key, value in obj.items() if key != "apiVersion"}, "metadata": meta}


def _owner(managed_fields_entry: JsonObject) -> tuple[Any, Any, Any]:
    """What identifies a managedFields entry: the manager, the operation and the subresource."""
    entry = managed_fields_entry
    return (entry.get("manager"), entry.get("operation"), entry.get("subresource"))


def _object_body(value: Any) -> JsonObject:
    if not isinstance(value, dict) or not isinstance(value.setdefault("metadata", {}), dict):
        raise _bad_request("the request body must be an object whose metadata is an object")
    return value


def _initialize(kind: _Kind, obj: JsonObject) -> None:
    """Server-side defaults on create; the status of a kind with a status subresource is the server's."""
    if kind.status_subresource:
        obj.pop("status", None)
    if kind.storage == _PODS:
        obj["status"] = {"phase": "Pending"}
    elif kind.storage == _NAMESPACES:
        obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
        obj["status"] = {"phase": "Active"}
    elif kind.storage == _CRDS:
        spec, now = obj["spec"], _now()
        obj["status"] = {
            "acceptedNames": copy.deepcopy(spec["names"]),
            "conditions": [
                {
                    "type": "NamesAccepted",
                    "status": "True",
                    "lastTransitionTime": now,
                    "reason": "NoConflicts",
                    "message": "no conflicts found",
                },
                {
                    "type": "Established",
                    "status": "True",
                    "lastTransitionTime": now,
                    "reason": "InitialNamesAccepted",
                    "message": "the initial names have been accepted",
                },
            ],
            "storedVersions": [version["name"] for version in spec["versions"] if version.get("storage")],
        }


def _crd_problems(crd: JsonObject) -> list[tuple[str, str]]:
    spec: JsonObject = crd["spec"] if isinstance(crd.get("spec"), dict) else {}
    names: JsonObject = spec["names"] if isinstance(spec.get("names"), dict) else {}
    versions = spec.get("versions")
    problems = [
        (field, "Required value")
        for field, value in (
            ("spec.group", spec.get("group")),
            ("spec.names.plural", names.get("plural")),
            ("spec.names.kind", names.get("kind")),
        )
        if not value
    ]
    if spec.get("scope") not in ("Namespaced", "Cluster"):
        problems.append(("spec.scope", 'Unsupported value: supported values: "Cluster", "Namespaced"'))
    if (
        not isinstance(versions, list)
        or not versions
        or not all(isinstance(v, dict) and v.get("name") for v in versions)
    ):
        problems.append(("spec.versions", "Required value: every version needs a name"))
    expected = f"{names.get('plural')}.{spec.get('group')}"
    if not problems and crd["metadata"].get("name") != expected:
        detail = f'Invalid value: "{crd["metadata"].get("name")}": must be spec.names.plural+"."+spec.group'
        problems.append(("metadata.name", detail))
    return problems


def _crd_kinds(crd: JsonObject) -> list[_Kind]:
    """The kinds a stored CRD serves; none when it is too incomplete to serve anything."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    if not (spec.get("group") and names.get("plural") and names.get("kind")):
        return []
    return [
        _Kind(
            spec["group"],
            version["name"],
            names["plural"],
            names["kind"],
            namespaced=spec.get("scope") == "Namespaced",
            status_subresource="status" in (version.get("subresources") or {}),
            custom=True,
            singular=names.get("singular", ""),
        )
        for version in spec.get("versions") or []
        if isinstance(version, dict) and version.get("name") and version.get("served", True)
    ]


def _crd_storage(crd: JsonObject) -> _StorageKey | None:
    spec = crd.get("spec") or {}
    plural = (spec.get("names") or {}).get("plural")
    return (spec["group"], plural) if spec.get("group") and plural else None


# -------------------------------------------------------------------------------------------- cluster


class _Cluster:
    """Object store and write semantics of one emulated cluster. Callers hold the emulator lock."""

    def __init__(self, registered: Mapping[_KindKey, _Kind]) -> None:
        self._registered = registered
        self._crd_kinds: dict[_KindKey, _Kind] = {}
        self._objects: dict[_StorageKey, dict[_ObjectKey, JsonObject]] = {}
        self.revision = 0
        self.logs: dict[_ObjectKey, str] = {}
        for name in _INITIAL_NAMESPACES:
            namespace = {"metadata": {"name": name}}
            _initialize(_NAMESPACE_KIND, namespace)
            self.insert(_NAMESPACE_KIND, namespace, [])

    # -- kinds

    def kinds(self) -> list[_Kind]:
        return list({**_BUILTIN_KINDS, **self._registered, **self._crd_kinds}.values())

    def kind(self, group: str, version: str, plural: str) -> _Kind | None:
        key = (group, version, plural)
        return self._crd_kinds.get(key) or self._registered.get(key) or _BUILTIN_KINDS.get(key)

    def served(self, group: str, version: str, plural: str) -> _Kind:
        """The kind at ``group/version/plural``; LookupError when the cluster does not serve it."""
        kind = self.kind(group, version, plural)
        if kind is None:
            raise LookupError(f"unknown resource {plural!r} in {group or 'core'}/{version}")
        return kind

    def kind_for(self, api_version: str, kind_name: str) -> _Kind | None:
        return next((k for k in self.kinds() if k.api_version == api_version and k.kind == kind_name), None)

    def _sync_crd_kinds(self) -> None:
        crds = self._objects.get(_CRDS, {}).values()
        self._crd_kinds = {kind.key: kind for crd in crds for kind in _crd_kinds(crd)}

    # -- reads

    def count(self) -> int:
        return sum(len(bucket) for bucket in self._objects.values())

    def get(self, kind: _Kind, namespace: str | None, name: str) -> JsonObject | None:
        key = ((namespace or "") if kind.namespaced else "", name)
        return self._objects.get(kind.storage, {}).get(key)

    def require(self, kind: _Kind, namespace: str | None, name: str) -> JsonObject:
        obj = self.get(kind, namespace, name)
        if obj is None:
            raise _not_found(kind, name)
        return obj

    def select(
        self,
        kind: _Kind,
        namespace: str | None,
        labels: Sequence[_LabelRequirement] = (),
        fields: Sequence[tuple[list[str], bool, str]] = (),
    ) -> list[JsonObject]:
        """Live objects of ``kind`` in ``namespace`` (None: everywhere) matching the selectors, by key."""
        return [
            obj
            for key, obj in sorted(self._objects.get(kind.storage, {}).items())
            if (namespace is None or key[0] == namespace)
            and all(requirement.matches(obj["metadata"].get("labels") or {}) for requirement in labels)
            and all((_field_value(obj, path) == value) == equal for path, equal, value in fields)
        ]

    # -- primitive writes

    def _next_revision(self) -> str:
        self.revision += 1
        return str(self.revision)

    def insert(self, kind: _Kind, obj: JsonObject, events: list[_Event]) -> JsonObject:
        meta = obj["metadata"]
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("creationTimestamp", _now())
        meta.setdefault("generation", 1)
        meta["resourceVersion"] = self._next_revision()
        obj["apiVersion"], obj["kind"] = kind.api_version, kind.kind
        self._objects.setdefault(kind.storage, {})[_object_key(obj)] = obj
        events.append(("ADDED", copy.deepcopy(obj)))
        if kind.storage == _CRDS:
            self._sync_crd_kinds()
        return obj

    def replace(self, kind: _Kind, live: JsonObject, new: JsonObject, events: list[_Event]) -> JsonObject:
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
        if _body_fields(new) != _body_fields(live):
            meta["generation"] = live_meta["generation"] + 1
        meta["resourceVersion"] = self._next_revision()
        self._objects[kind.storage][_object_key(new)] = new
        events.append(("MODIFIED", copy.deepcopy(new)))
        if kind.storage == _CRDS:
            self._sync_crd_kinds()
        return new

    def remove(self, storage: _StorageKey, key: _ObjectKey, events: list[_Event]) -> JsonObject:
        """Delete one object and whatever it owns (a namespace's contents, a CRD's custom objects)."""
        obj = self._objects[storage][key]
        if storage == _NAMESPACES:
            for other, bucket in list(self._objects.items()):
                for child in [child for child in bucket if child[0] == key[1]]:
                    self.remove(other, child, events)
        elif storage == _CRDS and (served := _crd_storage(obj)):
            for child in list(self._objects.get(served, {})):
                self.remove(served, child, events)
        del self._objects[storage][key]
        events.append(("DELETED", copy.deepcopy(obj)))
        if storage == _PODS:
            self.logs.pop(key, None)
        elif storage == _CRDS:
            self._sync_crd_kinds()
        return obj

    def put(self, obj: JsonObject, events: list[_Event]) -> tuple[_Kind, JsonObject]:
        """Upsert without API validation, for simulated controllers."""
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

    def _check_identity(self, kind: _Kind, meta: JsonObject, namespace: str | None, name: str | None) -> None:
        if name is not None and meta.setdefault("name", name) != name:
            raise _bad_request(f"the object name {meta['name']!r} does not match the URL's name {name!r}")
        if not kind.namespaced:
            meta.pop("namespace", None)
        elif meta.setdefault("namespace", namespace) != namespace:
            raise _bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            )

    @staticmethod
    def _check_version(kind: _Kind, live: JsonObject, version: Any) -> None:
        name = live["metadata"]["name"]
        if version and str(version) != live["metadata"]["resourceVersion"]:
            raise _ApiError(
                409,
                "Conflict",
                f'Operation cannot be fulfilled on {kind.resource} "{name}": the object has been modified; '
                "please apply your changes to the latest version and try again",
                _details(kind, name),
            )

    def _generate_name(self, kind: _Kind, namespace: str | None, prefix: str) -> str:
        while True:
            name = prefix[:58] + "".join(random.choices(_NAME_SUFFIX_ALPHABET, k=5))
            if self.get(kind, namespace, name) is None:
                return name

    def create(self, kind: _Kind, namespace: str | None, body: Any, events: list[_Event]) -> JsonObject:
        obj = _object_body(body)
        meta = obj["metadata"]
        self._check_identity(kind, meta, namespace, None)
        if kind.namespaced:
            self.require(_NAMESPACE_KIND, None, namespace or "")
        if not meta.get("name") and isinstance(meta.get("generateName"), str):
            meta["name"] = self._generate_name(kind, namespace, meta["generateName"])
        name = meta.get("name")
        if not name:
            raise _invalid(kind, "", [("metadata.name", "Required value: name or generateName is required")])
        rule = _NAME_RULES[kind.name_rule]
        if not isinstance(name, str) or len(name) > rule.max_length or not rule.pattern.fullmatch(name):
            raise _invalid(kind, str(name), [("metadata.name", f'Invalid value: "{name}": {rule.message}')])
        if kind.storage == _CRDS and (problems := _crd_problems(obj)):
            raise _invalid(kind, name, problems)
        if self.get(kind, namespace, name) is not None:
            message = f'{kind.resource} "{name}" already exists'
            raise _ApiError(409, "AlreadyExists", message, _details(kind, name))
        for field in ("uid", "resourceVersion", "creationTimestamp", "generation", "deletionTimestamp"):
            meta.pop(field, None)
        _initialize(kind, obj)
        return self.insert(kind, obj, events)

    def _compose(self, kind: _Kind, live: JsonObject, candidate: Any, status_only: bool) -> JsonObject:
        """The object an API update stores: the status subresource owns status, the main resource the rest."""
        if not isinstance(candidate, dict) or not isinstance(candidate.get("metadata"), dict):
            raise _ApiError(422, "Invalid", "the updated object must have an object as its metadata")
        new = copy.deepcopy(live if status_only else candidate)
        source = candidate if status_only else live
        if status_only or kind.status_subresource:
            if "status" in source:
                new["status"] = copy.deepcopy(source["status"])
            else:
                new.pop("status", None)
        if "managedFields" not in new["metadata"] and "managedFields" in live["metadata"]:
            new["metadata"]["managedFields"] = copy.deepcopy(live["metadata"]["managedFields"])
        if kind.storage == _CRDS and (problems := _crd_problems(new)):
            raise _invalid(kind, live["metadata"]["name"], problems)
        return new

    def update(
        self,
        kind: _Kind,
        namespace: str | None,
        name: str,
        body: Any,
        status_only: bool,
        events: list[_Event],
    ) -> JsonObject:
        live = self.require(kind, namespace, name)
        obj = _object_body(body)
        self._check_identity(kind, obj["metadata"], namespace, name)
        version = obj["metadata"].get("resourceVersion")
        if kind.custom and not version:
            cause = ("metadata.resourceVersion", "Invalid value: 0x0: must be specified for an update")
            raise _invalid(kind, name, [cause])
        self._check_version(kind, live, version)
        return self.replace(kind, live, self._compose(kind, live, obj, status_only), events)

    def patch(
        self,
        kind: _Kind,
        namespace: str | None,
        name: str,
        content_type: str,
        patch: Any,
        status_only: bool,
        events: list[_Event],
    ) -> JsonObject:
        live = self.require(kind, namespace, name)
        if content_type == _JSON_PATCH:
            candidate = _json_patch(live, patch)
        elif not isinstance(patch, dict):
            raise _bad_request("a merge patch must be a JSON object")
        elif content_type == _MERGE_PATCH:
            candidate = _merge_patch(live, patch)
        else:
            candidate = _strategic_merge_patch(live, patch)
        if isinstance(candidate, dict) and isinstance(candidate.get("metadata"), dict):
            self._check_version(kind, live, candidate["metadata"].get("resourceVersion"))
        return self.replace(kind, live, self._compose(kind, live, candidate, status_only), events)

    def apply(
        self,
        kind: _Kind,
        namespace: str | None,
        name: str,
        applied: Any,
        manager: str,
        status_only: bool,
        events: list[_Event],
    ) -> tuple[JsonObject, bool]:
        """Server-side apply; returns the stored object and whether it was created."""
        obj = _drop_nulls(_object_body(applied))
        if obj.get("apiVersion") != kind.api_version or obj.get("kind") != kind.kind:
            raise _bad_request(f"an apply patch must have apiVersion {kind.api_version} and kind {kind.kind}")
        meta = obj["metadata"]
        self._check_identity(kind, meta, namespace, name)
        meta.pop("managedFields", None)
        entry = {
            "manager": manager,
            "operation": "Apply",
            "apiVersion": kind.api_version,
            "time": _now(),
            "fieldsType": "FieldsV1",
            **({"subresource": "status"} if status_only else {}),
        }
        owner = _owner(entry)
        live = self.get(kind, namespace, name)
        if live is None:
            if status_only:
                raise _not_found(kind, name)
            meta["managedFields"] = [entry]
            return self.create(kind, namespace, obj, events), True
        candidate = _strategic_merge_patch(live, {"status": obj.get("status", {})} if status_only else obj)
        new = self._compose(kind, live, candidate, status_only)
        entries = live["metadata"].get("managedFields") or []
        previous = [e for e in entries if _owner(e) == owner]
        unchanged = _without_bookkeeping(new) == _without_bookkeeping(live)
        if not (unchanged and previous and previous[0].get("apiVersion") == kind.api_version):
            # Like a real server, the entry's time only moves when the applied content changes something.
            new["metadata"]["managedFields"] = [e for e in entries if _owner(e) != owner] + [entry]
        return self.replace(kind, live, new, events), False

    def delete(self, kind: _Kind, namespace: str | None, name: str, events: list[_Event]) -> JsonObject:
        live = self.require(kind, namespace, name)
        if kind.storage == _NAMESPACES and name in _PROTECTED_NAMESPACES:
            raise _ApiError(
                403,
                "Forbidden",
                f'namespaces "{name}" is forbidden: this namespace may not be deleted',
                _details(kind, name),
            )
        return self.remove(kind.storage, _object_key(live), events)


# ----------------------------------------------------------------------------------------------- HTTP


@dataclass(frozen=True)
class _Call:
    """The parts of one HTTP request the emulator looks at."""

    method: str
    cluster: str
    parts: list[str]
    query: Mapping[str, str]
    content_type: str
    authorization: str
    body: bytes
    host: str


def _token_is_well_formed(token: str) -> bool:
    """An EKS token: ``k8s-aws-v1.`` + unpadded base64url of a presigned STS GetCallerIdentity URL."""
    if not token.startswith(_TOKEN_PREFIX):
        return False
    encoded = token[len(_TOKEN_PREFIX) :]
    try:
        url = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    except (binascii.Error, ValueError):
        return False
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    signed = ";".join(query.get("X-Amz-SignedHeaders", [])).lower().split(";")
    return (
        (parts.hostname or "").startswith("sts.")
        and query.get("Action") == ["GetCallerIdentity"]
        and "x-k8s-aws-id" in signed
    )


def _version_priority(version: str) -> tuple[int, int, int, str]:
    """Kubernetes version ordering: GA before beta before alpha, newer first, then anything else by name."""
    match = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if not match:
        return (3, 0, 0, version)
    stage = {None: 0, "beta": 1, "alpha": 2}[match[2]]
    return (stage, -int(match[1]), -int(match[3] or 0), version)


def _api_group(group: str, kinds: Iterable[_Kind]) -> JsonObject:
    versions = sorted({kind.version for kind in kinds if kind.group == group}, key=_version_priority)
    entries = [{"groupVersion": f"{group}/{version}", "version": version} for version in versions]
    return {"name": group, "versions": entries, "preferredVersion": entries[0]}


def _query_int(query: Mapping[str, str], name: str) -> int | None:
    value = query.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise _bad_request(f"{name} must be an integer, got {value!r}") from None


def _paginate(items: list[JsonObject], query: Mapping[str, str]) -> tuple[list[JsonObject], JsonObject]:
    """Apply ``continue`` and ``limit``; returns the page and the list metadata it adds."""
    if token := query.get("continue"):
        try:
            start = json.loads(base64.urlsafe_b64decode(token))["start"]
        except (binascii.Error, ValueError, KeyError, TypeError):
            start = None
        if not (isinstance(start, list) and len(start) == 2 and all(isinstance(part, str) for part in start)):
            raise _bad_request("continue key is not valid")
        items = [item for item in items if _object_key(item) > (start[0], start[1])]
    limit = _query_int(query, "limit") or 0
    if limit <= 0 or len(items) <= limit:
        return items, {}
    marker = json.dumps({"v": "meta.k8s.io/v1", "start": list(_object_key(items[limit - 1]))})
    continue_token = base64.urlsafe_b64encode(marker.encode()).decode()
    return items[:limit], {"continue": continue_token, "remainingItemCount": len(items) - limit}


@dataclass(frozen=True)
class _Target:
    """A resource request resolved against one cluster, handled inside that cluster's transaction."""

    call: _Call
    cluster: _Cluster
    events: list[_Event]
    kind: _Kind
    namespace: str | None

    def respond(self, obj: JsonObject, status_code: int = 200) -> JSONResponse:
        return JSONResponse(_present(self.kind, obj), status_code=status_code)


class _HttpApi:
    """Routes emulated Kubernetes REST calls onto the emulator's clusters."""

    def __init__(self, emulator: KubernetesEmulator) -> None:
        self._emulator = emulator

    def app(self) -> Starlette:
        methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
        return Starlette(routes=[Route("/{cluster}/{path:path}", self._endpoint, methods=methods)])

    async def _endpoint(self, request: Request) -> Response:
        call = _Call(
            method=request.method,
            cluster=request.path_params["cluster"],
            parts=[part for part in request.path_params["path"].split("/") if part],
            query=request.query_params,
            content_type=request.headers.get("content-type", "").split(";")[0].strip().lower(),
            authorization=request.headers.get("authorization", ""),
            body=await request.body(),
            host=request.url.netloc,
        )
        return await run_in_threadpool(self._handle, call)

    def _handle(self, call: _Call) -> Response:
        try:
            scheme, _, token = call.authorization.partition(" ")
            token = token.strip()
            if scheme.lower() != "bearer" or not _token_is_well_formed(token):
                raise _ApiError(401, "Unauthorized", "Unauthorized")
            if not self._emulator._authorize(call.cluster, token):
                raise _ApiError(403, "Forbidden", f'access to cluster "{call.cluster}" is not granted')
            if call.query.get("watch", "").lower() in ("true", "1"):
                raise _bad_request("watch not supported")
            return self._route(call)
        except _ApiError as error:
            return JSONResponse(error.status(), status_code=error.code)

    def _route(self, call: _Call) -> Response:
        parts = call.parts
        if parts[:1] == ["api"] and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        elif call.method != "GET":
            raise _method_not_allowed()
        else:
            document = self._emulator._transact(call.cluster, lambda cluster, _: self._root(call, cluster))
            return JSONResponse(document)

        def handle(cluster: _Cluster, events: list[_Event]) -> Response:
            return self._resource(call, cluster, events, group, version, rest)

        return self._emulator._transact(call.cluster, handle)

    @staticmethod
    def _root(call: _Call, cluster: _Cluster) -> JsonObject:
        """Discovery documents that sit above any group version."""
        kinds = cluster.kinds()
        groups = list(dict.fromkeys(kind.group for kind in kinds if kind.group))
        if call.parts == ["version"]:
            return _VERSION_INFO
        if call.parts == ["api"]:
            addresses = [{"clientCIDR": "0.0.0.0/0", "serverAddress": call.host}]
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": addresses}
        if call.parts == ["apis"]:
            return {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [_api_group(g, kinds) for g in groups],
            }
        if len(call.parts) == 2 and call.parts[0] == "apis" and call.parts[1] in groups:
            return {"kind": "APIGroup", "apiVersion": "v1", **_api_group(call.parts[1], kinds)}
        raise _no_such_resource()

    @staticmethod
    def _resource_list(call: _Call, cluster: _Cluster, group: str, version: str) -> Response:
        kinds = [kind for kind in cluster.kinds() if (kind.group, kind.version) == (group, version)]
        if not kinds:
            raise _no_such_resource()
        if call.method != "GET":
            raise _method_not_allowed()
        return JSONResponse(
            {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": f"{group}/{version}" if group else version,
                "resources": [entry for kind in kinds for entry in kind.discovery()],
            },
        )

    def _resource(
        self, call: _Call, cluster: _Cluster, events: list[_Event], group: str, version: str, rest: list[str]
    ) -> Response:
        if not rest:
            return self._resource_list(call, cluster, group, version)
        namespace = None
        namespace_subresource = len(rest) == 3 and rest[2] in ("status", "finalize")
        if rest[0] == "namespaces" and len(rest) >= 3 and not namespace_subresource:
            namespace, rest = rest[1], rest[2:]
        if len(rest) > 3:
            raise _no_such_resource()
        plural = rest[0]
        name = rest[1] if len(rest) > 1 else None
        subresource = rest[2] if len(rest) > 2 else None
        kind = cluster.kind(group, version, plural)
        if (
            kind is None
            or (namespace is not None and not kind.namespaced)
            or (namespace is None and kind.namespaced and name is not None)
        ):
            raise _no_such_resource()
        target = _Target(call, cluster, events, kind, namespace)
        if name is None:
            return self._collection(target)
        if subresource is None or (subresource == "status" and kind.status_subresource):
            return self._item(target, name, status_only=subresource is not None)
        if subresource == "log" and kind.storage == _PODS and call.method == "GET":
            return self._pod_log(target, name)
        raise _no_such_resource()

    def _collection(self, target: _Target) -> Response:
        call, cluster, kind = target.call, target.cluster, target.kind
        all_namespaces = kind.namespaced and target.namespace is None
        if call.method == "POST" and not all_namespaces:
            created = cluster.create(kind, target.namespace, self._decode(call), target.events)
            return target.respond(created, 201)
        if call.method not in ("GET", "DELETE") or (call.method == "DELETE" and all_namespaces):
            raise _method_not_allowed()
        try:
            labels = _parse_label_selector(call.query.get("labelSelector", ""))
            fields = _parse_field_selector(call.query.get("fieldSelector", ""), kind)
        except ValueError as exc:
            raise _bad_request(str(exc)) from None
        items = cluster.select(kind, target.namespace, labels, fields)
        metadata: JsonObject = {}
        if call.method == "GET":
            items, metadata = _paginate(items, call.query)
        else:
            items = [cluster.remove(kind.storage, _object_key(item), target.events) for item in items]
        return JSONResponse(
            {
                "kind": f"{kind.kind}List",
                "apiVersion": kind.api_version,
                "metadata": {"resourceVersion": str(cluster.revision), **metadata},
                "items": [_present(kind, item) for item in items],
            },
        )

    def _item(self, target: _Target, name: str, status_only: bool) -> Response:
        call, cluster, kind, namespace = target.call, target.cluster, target.kind, target.namespace
        if call.method == "GET":
            return target.respond(cluster.require(kind, namespace, name))
        if call.method == "PUT":
            body = self._decode(call)
            return target.respond(cluster.update(kind, namespace, name, body, status_only, target.events))
        if call.method == "PATCH":
            return self._patch(target, name, status_only)
        if call.method == "DELETE" and not status_only:
            deleted = cluster.delete(kind, namespace, name, target.events)
            if kind.storage in _RETURNS_DELETED_OBJECT:
                return target.respond(deleted)
            details = {**_details(kind, name), "uid": deleted["metadata"]["uid"]}
            status = {"kind": "Status", "apiVersion": "v1", "status": "Success"}
            return JSONResponse({**status, "details": details})
        raise _method_not_allowed()

    def _patch(self, target: _Target, name: str, status_only: bool) -> Response:
        call, cluster, kind, namespace = target.call, target.cluster, target.kind, target.namespace
        accepted = [_JSON_PATCH, _MERGE_PATCH, _APPLY_PATCH] + ([] if kind.custom else [_STRATEGIC_PATCH])
        if call.content_type not in accepted:
            raise _unsupported_media(accepted)
        body = self._decode(call)
        if call.content_type != _APPLY_PATCH:
            content_type = call.content_type
            patched = cluster.patch(kind, namespace, name, content_type, body, status_only, target.events)
            return target.respond(patched)
        manager = call.query.get("fieldManager")
        if not manager:
            raise _bad_request("fieldManager: Required value: is required for apply patch")
        obj, created = cluster.apply(kind, namespace, name, body, manager, status_only, target.events)
        return target.respond(obj, 201 if created else 200)

    @staticmethod
    def _decode(call: _Call) -> Any:
        if not call.body:
            raise _bad_request("the request needs a body")
        try:
            if "yaml" in call.content_type:
                return yaml.load(call.body, Loader=_YamlLoader)
            return json.loads(call.body)
        except (ValueError, yaml.YAMLError) as exc:
            raise _bad_request(f"unable to decode the request body: {exc}") from None

    @staticmethod
    def _pod_log(target: _Target, name: str) -> Response:
        namespace = target.namespace or ""
        target.cluster.require(_POD_KIND, namespace, name)
        text = target.cluster.logs.get((namespace, name), "")
        tail = _query_int(target.call.query, "tailLines")
        if tail is not None:
            text = "".join(text.splitlines(keepends=True)[-tail:]) if tail > 0 else ""
        return PlainTextResponse(text)


# --------------------------------------------------------------------------------------------- public


class ClusterStore:
    """Programmatic, thread-safe access to one cluster's objects, for simulated controllers and tests.

    Writes skip API validation (names, namespaces, status-subresource rules) but keep resource versions,
    CRD registration, cascading deletes and listener notifications consistent with HTTP writes.
    Returned objects are copies the caller owns. A kind the cluster does not serve raises LookupError,
    a malformed label selector ValueError.
    """

    def __init__(self, emulator: KubernetesEmulator, cluster: str) -> None:
        self._emulator = emulator
        self._cluster = cluster

    def get(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None,
        name: str,
    ) -> JsonObject | None:
        """One object, or None when absent (``namespace`` is ignored for cluster-scoped kinds)."""

        def read(cluster: _Cluster, _: list[_Event]) -> JsonObject | None:
            kind = cluster.served(group, version, plural)
            obj = cluster.get(kind, namespace, name)
            return None if obj is None else _present(kind, obj)

        return self._emulator._transact(self._cluster, read)

    def list(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None = None,
        label_selector: str | None = None,
    ) -> list[JsonObject]:
        """Objects of a kind in ``namespace`` (None: all namespaces), filtered by a label selector."""
        requirements = _parse_label_selector(label_selector or "")

        def read(cluster: _Cluster, _: list[_Event]) -> list[JsonObject]:
            kind = cluster.served(group, version, plural)
            scope = namespace if kind.namespaced else None
            return [_present(kind, obj) for obj in cluster.select(kind, scope, requirements)]

        return self._emulator._transact(self._cluster, read)

    def put(self, obj: JsonObject) -> JsonObject:
        """Create or replace ``obj`` (routed by apiVersion and kind); an unchanged write is a no-op.

        A new object gets uid, creationTimestamp and generation; every real change bumps resourceVersion,
        and generation too when anything outside metadata and status changed.
        """

        def write(cluster: _Cluster, events: list[_Event]) -> JsonObject:
            kind, stored = cluster.put(copy.deepcopy(obj), events)
            return _present(kind, stored)

        return self._emulator._transact(self._cluster, write)

    def delete(
        self,
        group: str,
        version: str,
        plural: str,
        namespace: str | None,
        name: str,
    ) -> JsonObject | None:
        """Delete an object (cascading like the API does); returns it, or None when it was absent."""

        def write(cluster: _Cluster, events: list[_Event]) -> JsonObject | None:
            kind = cluster.served(group, version, plural)
            obj = cluster.get(kind, namespace, name)
            if obj is None:
                return None
            return _present(kind, cluster.remove(kind.storage, _object_key(obj), events))

        return self._emulator._transact(self._cluster, write)

    def count(self) -> int:
        """How many objects the cluster holds, the four initial namespaces included."""
        return self._emulator._transact(self._cluster, lambda cluster, _: cluster.count())


class KubernetesEmulator:
    """Emulated Kubernetes API servers for any number of clusters, served by one ASGI app.

    Thread-safe: the ASGI app and sandbox threads may use it concurrently. Listeners run on the writing
    thread after the write is committed and the lock released, so they may write back to the store.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._clusters: dict[str, _Cluster] = {}
        self._registered: dict[_KindKey, _Kind] = {}
        self._listeners: list[Listener] = []
        self._authorizer: Authorizer | None = None

    def asgi_app(self) -> Starlette:
        """The Starlette app serving ``/{cluster}/...``; mount it wherever the sandbox exposes Kubernetes."""
        return _HttpApi(self).app()

    def add_cluster(self, name: str) -> None:
        """Create the cluster's store (with its initial namespaces) unless it exists."""
        with self._lock:
            self._cluster(name)

    def remove_cluster(self, name: str) -> None:
        """Drop a cluster and everything in it, without notifying listeners."""
        with self._lock:
            self._clusters.pop(name, None)

    def clusters(self) -> list[str]:
        with self._lock:
            return sorted(self._clusters)

    def store(self, cluster: str) -> ClusterStore:
        """Programmatic access to a cluster's objects (creating the cluster on first use)."""
        self.add_cluster(cluster)
        return ClusterStore(self, cluster)

    def register_kind(
        self,
        group: str,
        version: str,
        plural: str,
        kind: str,
        namespaced: bool,
        *,
        status_subresource: bool = True,
    ) -> None:
        """Serve an extra kind in every cluster, as if the API server had it built in."""
        with self._lock:
            registered = _Kind(group, version, plural, kind, namespaced, status_subresource)
            self._registered[registered.key] = registered

    def set_authorizer(self, authorizer: Authorizer | None) -> None:
        """Decide per ``(cluster, token)`` whether a well-formed token may act (None: all may)."""
        with self._lock:
            self._authorizer = authorizer

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(cluster, event_type, obj)`` after every write (ADDED, MODIFIED or DELETED)."""
        with self._lock:
            self._listeners.append(listener)

    def set_pod_log(self, cluster: str, namespace: str, pod: str, text: str) -> None:
        """The text served as the pod's log (until the pod is deleted)."""
        with self._lock:
            self._cluster(cluster).logs[(namespace, pod)] = text

    def _cluster(self, name: str) -> _Cluster:
        if name not in self._clusters:
            self._clusters[name] = _Cluster(self._registered)
        return self._clusters[name]

    def _authorize(self, cluster: str, token: str) -> bool:
        with self._lock:
            authorizer = self._authorizer
        return authorizer is None or authorizer(cluster, token)

    def _transact(self, cluster: str, operation: Callable[[_Cluster, list[_Event]], _T]) -> _T:
        """Run ``operation`` under the lock, then tell the listeners about the writes it made."""
        events: list[_Event] = []
        with self._lock:
            result = operation(self._cluster(cluster), events)
            listeners = list(self._listeners)
        for event_type, obj in events:
            for listener in listeners:
                try:
                    listener(cluster, event_type, copy.deepcopy(obj))
                except Exception:  # noqa: BLE001 - a broken listener must not undo a committed write
                    _LOG.exception("k8s emulator listener failed on %s of %s", event_type, obj.get("kind"))
        return result
