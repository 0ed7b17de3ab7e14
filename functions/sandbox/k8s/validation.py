"""Validation of writes against the written kind's schema, as the API server validates them.

Unknown fields (:mod:`sandbox.k8s.fields` says where the rules come from): a create or a merge patch follows its
`fieldValidation` parameter, `Strict` refusing the write with 400 BadRequest naming every unknown field, `Ignore`
dropping them, and `Warn` (the default) dropping them and naming each in a `Warning` response header; server-side
apply refuses them whatever the parameter says, with the 500 the real server answers (kubernetes/kubernetes#122480,
#139253). Values: a custom resource as it would be stored is checked against its CRD's schema
(:mod:`sandbox.k8s.crd_values`, 422 Invalid). A kind with no schema (a CRD that declares none, a built-in kind
`kubernetes-validate` does not know) keeps everything.
"""

from __future__ import annotations

from typing import Any

from sandbox.k8s import crd_values
from sandbox.k8s.apply import MERGE_PATCH, drop_nulls, merge_patch, strategic_merge_patch
from sandbox.k8s.errors import ApiError, bad_request
from sandbox.k8s.fields import Schema, UnknownField, builtin_schema, crd_schema, unknown_fields
from sandbox.k8s.kinds import BUILTIN_KINDS, Kind
from sandbox.k8s.store import ObjectStore

JsonObject = dict[str, Any]
DIRECTIVES = ("Strict", "Warn", "Ignore")
_CRD_KIND = BUILTIN_KINDS[("apiextensions.k8s.io", "v1", "customresourcedefinitions")]


def created(store: ObjectStore, kind: Kind, body: Any, directive: str | None) -> list[str]:
    """Check a create's object (pruning unknown fields unless Strict refuses them); the warnings to send."""
    schema = _schema(store, kind)
    warnings = _decoded(kind, schema, body, directive, patch=False)
    _check_values(kind, schema, body)
    return warnings


def patched(
    store: ObjectStore, kind: Kind, target: tuple[str | None, str], content_type: str, body: Any, directive: str | None
) -> list[str]:
    """Check a merge patch of the object `target` names ((namespace, name)): its fields, and the patched values."""
    schema = _schema(store, kind)
    warnings = _decoded(kind, schema, body, directive, patch=True)
    live = store.get(kind, *target)
    if live is not None and isinstance(body, dict):
        merge = merge_patch if content_type == MERGE_PATCH else strategic_merge_patch
        _check_values(kind, schema, merge(live, body))
    return warnings


def applied(store: ObjectStore, kind: Kind, namespace: str | None, name: str, body: Any) -> None:
    """Refuse a server-side apply that names a field the kind's schema does not declare, or a value it refuses."""
    schema = _schema(store, kind)
    unknown = _unknown(schema, body, prune=False)
    if unknown:
        texts = [f"{field.applied()}: field not declared in schema" for field in unknown]
        detail = texts[0] if len(texts) == 1 else "errors:\n  " + "\n  ".join(texts)
        gvk = f"{kind.group}/{kind.version}, Kind={kind.kind}"
        raise ApiError(500, "", f"failed to create typed patch object ({namespace or ''}/{name}; {gvk}): {detail}")
    live = store.get(kind, namespace, name)
    if isinstance(body, dict):
        _check_values(kind, schema, drop_nulls(body) if live is None else strategic_merge_patch(live, drop_nulls(body)))


def directive_of(query: Any) -> str | None:
    """The request's `fieldValidation` (None: the default, Warn); anything else is refused as the server does."""
    value = query.get("fieldValidation")
    if value is not None and value not in DIRECTIVES:
        supported = ", ".join(f'"{directive}"' for directive in DIRECTIVES)
        raise bad_request(f'fieldValidation: Unsupported value: "{value}": supported values: {supported}')
    return value


def warning_headers(warnings: list[str]) -> list[tuple[str, str]]:
    """`Warning` headers as the API server sends them: code 299, agent `-`, the text quoted."""
    return [("warning", '299 - "' + text.replace("\\", "\\\\").replace('"', '\\"') + '"') for text in warnings]


def _decoded(kind: Kind, schema: Schema | None, body: Any, directive: str | None, patch: bool) -> list[str]:
    unknown = _unknown(schema, body, prune=directive != "Strict")
    if not unknown:
        return []
    if directive == "Strict":
        listed = ", ".join(f'unknown field "{field.decoded()}"' for field in unknown)
        problem = f"strict decoding error: {listed}"
        # A create's decoder names the kind it could not decode into; a patch's error is the decoder's alone.
        raise bad_request(
            problem
            if patch
            else f'{kind.kind} in version "{kind.version}" cannot be handled as a {kind.kind}: {problem}'
        )
    return [] if directive == "Ignore" else [f'unknown field "{field.decoded()}"' for field in unknown]


def _check_values(kind: Kind, schema: Schema | None, obj: Any) -> None:
    if kind.custom and schema is not None and isinstance(obj, dict):
        crd_values.check(kind, obj, schema.node)


def _unknown(schema: Schema | None, body: Any, prune: bool) -> list[UnknownField]:
    if schema is None or not isinstance(body, dict):
        return []
    return unknown_fields(body, schema, prune)


def _schema(store: ObjectStore, kind: Kind) -> Schema | None:
    if not kind.custom:
        return builtin_schema(kind.api_version, kind.kind)
    crd = store.get(_CRD_KIND, None, f"{kind.plural}.{kind.group}")
    return None if crd is None else crd_schema(crd, kind.version)
