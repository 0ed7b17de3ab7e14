"""The fields of a written object that its kind's schema does not declare, found as the API server finds them.

The API server decodes every write against its kind's schema: a built-in kind's Go type (whose OpenAPI schema, per
Kubernetes release, the `kubernetes-validate` package ships), a custom kind's CRD `openAPIV3Schema`, where
`x-kubernetes-preserve-unknown-fields` keeps what it does not declare. An undeclared field is dropped with a warning
(`fieldValidation=Warn`, the default), dropped silently (`Ignore`) or refuses the write with 400 BadRequest (`Strict`)
[kubernetes test/integration/apiserver/field_validation_test.go]; server-side apply refuses it whatever the parameter
says [KEP-2885], with a 500 (kubernetes/kubernetes#122480, #139253). Each place an unknown field was found is
returned in the two spellings the server uses: the decoder's (`spec.containers[0].foo`) and server-side apply's
(`.spec.containers[name="main"].foo`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

JsonObject = dict[str, Any]
# The release whose built-in schemas the emulator holds: the one it reports as its version (`http.VERSION_INFO`).
KUBERNETES_RELEASE = "1.34.0"
_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_IMPLICIT = frozenset({"apiVersion", "kind", "metadata"})


@dataclass(frozen=True)
class Step:
    """One step of a path: a field, or a list item by index (and by its key, in a list keyed by some of its fields)."""

    field: str | None = None
    index: int = 0
    key: str | None = None


@dataclass(frozen=True)
class UnknownField:
    path: tuple[Step, ...]

    def decoded(self) -> str:
        """As the decoder names it: `spec.template.spec.containers[0].foo`."""
        parts: list[str] = []
        for step in self.path:
            if step.field is None:
                parts.append(f"[{step.index}]")
            else:
                parts.append(f".{step.field}" if parts else step.field)
        return "".join(parts)

    def applied(self) -> str:
        """As server-side apply names it: `.spec.template.spec.containers[name="main"].foo`."""
        return "".join(
            f".{step.field}" if step.field is not None else f"[{step.key or step.index}]" for step in self.path
        )


@dataclass(frozen=True)
class Schema:
    """A kind's schema: its root node, the document its `$ref`s point into, and its dialect.

    A CRD's structural schema closes every object that declares nothing open (its `properties` are all there is); a
    built-in kind's JSON schema closes exactly the objects that say `additionalProperties: false`.
    """

    node: JsonObject
    document: JsonObject
    structural: bool


def builtin_schema(api_version: str, kind: str) -> Schema | None:
    """A built-in kind's schema at the emulated release, or None when `kubernetes-validate` has none for it."""
    group_version = api_version.split("/")
    prefix = f"{group_version[0].split('.')[0]}-" if len(group_version) == 2 else ""
    node = _schema_file(f"{kind.lower()}-{prefix}{group_version[-1]}.json")
    return None if node is None else Schema(node, _definitions(), structural=False)


def crd_schema(crd: JsonObject, version: str) -> Schema | None:
    """The `openAPIV3Schema` a stored CRD declares for `version`, or None when it declares none."""
    for served in (crd.get("spec") or {}).get("versions") or []:
        if isinstance(served, dict) and served.get("name") == version:
            node = ((served.get("schema") or {}).get("openAPIV3Schema")) or None
            return Schema(node, node, structural=True) if isinstance(node, dict) else None
    return None


def unknown_fields(obj: JsonObject, schema: Schema, prune: bool = False) -> list[UnknownField]:
    """Every field of `obj` that `schema` does not declare, in document order; `prune` removes them from `obj`."""
    found: list[UnknownField] = []
    _walk(obj, schema.node, schema, (), found, prune, resource=True)
    return found


def _walk(
    value: Any,
    node: Any,
    schema: Schema,
    path: tuple[Step, ...],
    found: list[UnknownField],
    prune: bool,
    resource: bool = False,
) -> None:
    node = _resolved(node, schema)
    if isinstance(value, dict) and isinstance(node, dict):
        embedded = resource or node.get("x-kubernetes-embedded-resource") is True
        _walk_object(value, node, schema, path, found, prune, embedded)
    elif isinstance(value, list) and isinstance(node, dict):
        items = node.get("items")
        keys = node.get("x-kubernetes-list-map-keys") or []
        for index, item in enumerate(value):
            key = _item_key(item, keys)
            _walk(item, items, schema, (*path, Step(index=index, key=key)), found, prune)


def _walk_object(
    value: JsonObject,
    node: JsonObject,
    schema: Schema,
    path: tuple[Step, ...],
    found: list[UnknownField],
    prune: bool,
    resource: bool,
) -> None:
    properties = _properties(node, schema)
    extra = node.get("additionalProperties")
    preserved = node.get("x-kubernetes-preserve-unknown-fields") is True
    for name in list(value):
        child = (*path, Step(field=name))
        if name.startswith("$"):  # a strategic merge patch's directive, not a field
            continue
        if resource and name in _IMPLICIT:  # an object's own apiVersion, kind and ObjectMeta, whatever its schema says
            if name == "metadata":
                _walk(value[name], _meta_schema().node, _meta_schema(), child, found, prune)
        elif name in properties:
            _walk(value[name], properties[name], schema, child, found, prune)
        elif isinstance(extra, dict):
            _walk(value[name], extra, schema, child, found, prune)
        elif preserved or extra is True or (not schema.structural and extra is not False):
            continue
        else:
            found.append(UnknownField(child))
            if prune:
                del value[name]


def _properties(node: JsonObject, schema: Schema) -> JsonObject:
    """The declared fields of an object node, merged from the alternatives of an `anyOf`/`oneOf`/`allOf`."""
    merged = dict(node.get("properties") or {})
    for combinator in ("allOf", "anyOf", "oneOf"):
        for alternative in node.get(combinator) or []:
            merged.update(_properties(_resolved(alternative, schema), schema))
    return merged


def _resolved(node: Any, schema: Schema) -> Any:
    """A node with its `$ref` (`#/$defs/<name>`, or `/api/_definitions.json#/$defs/<name>`) followed."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = schema.document
        for part in filter(None, node["$ref"].partition("#")[2].split("/")):
            target = target[part]
        node = target
    return node


def _item_key(item: Any, keys: list[str]) -> str | None:
    """A keyed list item's key as server-side apply prints it: `name="main"`, `containerPort=80,protocol="TCP"`."""
    if not keys or not isinstance(item, dict):
        return None
    return ",".join(f"{key}={json.dumps(item[key])}" for key in keys if key in item) or None


@cache
def _schema_file(name: str) -> JsonObject | None:
    folder = resources.files("kubernetes_validate") / "kubernetes-json-schema" / f"v{KUBERNETES_RELEASE}-local-strict"
    try:
        loaded: JsonObject = json.loads((folder / name).read_text())
    except FileNotFoundError:
        return None
    return loaded


@cache
def _definitions() -> JsonObject:
    definitions = _schema_file("_definitions.json")
    if definitions is None:
        raise LookupError(f"kubernetes-validate has no schemas of Kubernetes {KUBERNETES_RELEASE}")
    return definitions


@cache
def _meta_schema() -> Schema:
    """ObjectMeta's schema: what every object's `metadata` is checked against, whatever its kind's schema says."""
    return Schema(_definitions()["$defs"][_OBJECT_META], _definitions(), structural=False)
