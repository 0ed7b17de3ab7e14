"""Checks a rendered manifest against its CRD's openAPIV3Schema before it is submitted.

The schemas are data files in `crd_schemas/` (one per kind: the training jobs' and the inference endpoints';
`{"$ref": "<file>#/<pointer>"}` reuses a part of another, as a RayJob's `rayClusterSpec` is a RayCluster's `spec`).
The check covers what a structural schema says: types, required fields, enums, bounds, lengths, patterns, item counts,
`additionalProperties`, and unknown fields (refused, since the API server would prune them silently) except under
`x-kubernetes-preserve-unknown-fields`.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

SCHEMAS_DIR = Path(__file__).resolve().parent / "crd_schemas"
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


@cache
def crd_schema(kind: str) -> dict[str, Any]:
    """The openAPIV3Schema of `kind` (e.g. `HyperPodPyTorchJob`), from its data file."""
    return _schema_file(f"{kind.lower()}.json")


@cache
def _schema_file(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS_DIR / name).read_text())
    return schema


def _resolved(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema a `$ref` (`<file>#/<json pointer>`) points at; any other schema as it is."""
    if "$ref" not in schema:
        return schema
    name, _, pointer = schema["$ref"].partition("#")
    target = _schema_file(name)
    for part in filter(None, pointer.split("/")):
        target = target[part]
    return target


def schema_problems(manifest: dict[str, Any]) -> list[str]:
    """What in `manifest` its kind's schema refuses, each as `path: problem`; empty when it validates."""
    problems: list[str] = []
    _check(manifest, crd_schema(str(manifest.get("kind"))), "", problems)
    return problems


def _check(value: Any, schema: dict[str, Any], path: str, problems: list[str]) -> None:
    schema = _resolved(schema)
    where = path or "."
    expected = schema.get("type")
    if expected and (not isinstance(value, _TYPES[expected]) or (expected != "boolean" and isinstance(value, bool))):
        problems.append(f"{where}: expected {expected}, got {type(value).__name__}")
        return
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "minimum" in schema and value < schema["minimum"]:
        problems.append(f"{where}: {value} is below the minimum {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        problems.append(f"{where}: {value} is above the maximum {schema['maximum']}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        problems.append(f"{where}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, str) and not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
        limits = f"{schema.get('minLength', 0)} to {schema.get('maxLength', 'any number of')}"
        problems.append(f"{where}: {value!r} is not {limits} characters long")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            problems.append(f"{where}: needs at least {schema['minItems']} item(s)")
        if len(value) > schema.get("maxItems", len(value)):
            problems.append(f"{where}: takes at most {schema['maxItems']} item(s)")
        for index, item in enumerate(value):
            _check(item, schema.get("items", {}), f"{path}[{index}]", problems)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        problems.extend(f"{path}.{name}: required" for name in schema.get("required", []) if name not in value)
        for name, item in value.items():
            if name in properties:
                _check(item, properties[name], f"{path}.{name}", problems)
            elif "additionalProperties" in schema:
                _check(item, schema["additionalProperties"], f"{path}.{name}", problems)
            elif not schema.get("x-kubernetes-preserve-unknown-fields"):
                problems.append(f"{path}.{name}: unknown field")
