"""A custom resource's values checked against its CRD's structural schema, as the API server checks them before it
stores one: types, enums, patterns, bounds and required fields, each refusal a cause of one 422 Invalid whose texts
follow the API server's (`spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"`).

Not checked: `x-kubernetes-validations` (CEL rules) and formats. A number with a fraction or a decimal point (`1.0`)
is no integer, as the API server decodes it.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from sandbox.k8s.errors import invalid
from sandbox.k8s.kinds import Kind

JsonObject = dict[str, Any]
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}
_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)


def check(kind: Kind, obj: JsonObject, schema: JsonObject) -> None:
    """Refuse `obj` with 422 Invalid when `schema` (its CRD's openAPIV3Schema) refuses any of its values."""
    causes = [_cause(error) for error in _Validator(_without_metadata(schema)).iter_errors(obj)]
    if causes:
        raise invalid(kind, str((obj.get("metadata") or {}).get("name", "")), sorted(causes))


def _cause(error: jsonschema.ValidationError) -> tuple[str, str]:
    path = _path(error.absolute_path)
    value = error.instance
    if error.validator == "required":
        missing = next(name for name in error.validator_value if name not in value)
        return (f"{path}.{missing}" if path else missing, "Required value")
    if error.validator == "enum":
        listed = ", ".join(json.dumps(option) for option in error.validator_value)
        return (path, f"Unsupported value: {json.dumps(value)}: supported values: {listed}")
    if error.validator == "type":
        actual = _JSON_TYPES.get(type(value), "null")
        return (path, f'Invalid value: "{actual}": {path} in body must be of type {error.validator_value}: "{actual}"')
    if error.validator == "pattern":
        return (path, f"Invalid value: {json.dumps(value)}: {path} in body should match '{error.validator_value}'")
    return (path, f"Invalid value: {json.dumps(value)}: {path} in body {error.message}")


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _without_metadata(schema: JsonObject) -> JsonObject:
    """The schema minus its root `metadata`, which the API server checks as ObjectMeta whatever the CRD says."""
    properties = {name: node for name, node in (schema.get("properties") or {}).items() if name != "metadata"}
    return {**schema, "properties": properties}
