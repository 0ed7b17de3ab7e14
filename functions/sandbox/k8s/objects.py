"""Plain-dict Kubernetes objects: their store keys, timestamps, and the copies the API hands out."""

from __future__ import annotations

import copy
import json
import marshal
from datetime import UTC, datetime
from typing import Any, TypeVar

from sandbox.k8s.errors import bad_request
from sandbox.k8s.kinds import Kind

JsonObject = dict[str, Any]
_T = TypeVar("_T")
ObjectKey = tuple[str, str]  # (namespace or "" for cluster-scoped, name)

_NON_GENERATION_FIELDS = frozenset({"apiVersion", "kind", "metadata", "status"})
_BOOKKEEPING_FIELDS = frozenset({"managedFields", "resourceVersion"})


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def object_key(obj: JsonObject) -> ObjectKey:
    return (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])


def encode_json(value: JsonObject) -> bytes:
    """JSON as the emulator answers it (the encoding of Starlette's JSONResponse)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode("utf-8")


def copy_json(value: _T) -> _T:
    """A deep copy of JSON-shaped data (dicts, lists, strings, numbers, booleans, None) through marshal, which
    copies a CRD's schema about ten times as fast as ``copy.deepcopy``; a value marshal cannot write (an enum, a
    datetime, a dict subclass) is copied by ``copy.deepcopy``."""
    try:
        copied: _T = marshal.loads(marshal.dumps(value))  # type: ignore[arg-type]
        return copied
    except ValueError:
        return copy.deepcopy(value)


def present(kind: Kind, obj: JsonObject) -> JsonObject:
    """A caller-owned copy of ``obj`` as served at ``kind``'s version."""
    return {**copy_json(obj), "apiVersion": kind.api_version, "kind": kind.kind}


def body_fields(obj: JsonObject) -> JsonObject:
    """Everything whose change bumps ``metadata.generation``."""
    return {key: value for key, value in obj.items() if key not in _NON_GENERATION_FIELDS}


def without_bookkeeping(obj: JsonObject) -> JsonObject:
    """The object minus what only records a write (resourceVersion, managedFields, apiVersion)."""
    meta = {key: value for key, value in obj["metadata"].items() if key not in _BOOKKEEPING_FIELDS}
    return {**{key: value for key, value in obj.items() if key != "apiVersion"}, "metadata": meta}


def object_body(value: Any) -> JsonObject:
    """A request body that is an object with an object as its metadata, or 400."""
    if not isinstance(value, dict) or not isinstance(value.setdefault("metadata", {}), dict):
        raise bad_request("the request body must be an object whose metadata is an object")
    return value
