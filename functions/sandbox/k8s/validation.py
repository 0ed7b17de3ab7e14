"""Field validation of writes: what the API server does with a field the written kind's schema does not declare.

A create or a merge patch follows its `fieldValidation` parameter (:mod:`sandbox.k8s.fields` says where the rules come
from): `Strict` refuses the write with 400 BadRequest naming every unknown field, `Ignore` drops them, and `Warn` (the
default) drops them and names each in a `Warning` response header. Server-side apply refuses them whatever the
parameter says, with the 500 the real server answers (kubernetes/kubernetes#122480, #139253). A kind with no schema
(a CRD that declares none, a built-in kind `kubernetes-validate` does not know) keeps everything.
"""

from __future__ import annotations

from typing import Any

from sandbox.k8s.errors import ApiError, bad_request
from sandbox.k8s.fields import Schema, UnknownField, builtin_schema, crd_schema, unknown_fields
from sandbox.k8s.kinds import BUILTIN_KINDS, Kind
from sandbox.k8s.store import ObjectStore

JsonObject = dict[str, Any]
DIRECTIVES = ("Strict", "Warn", "Ignore")
_CRD_KIND = BUILTIN_KINDS[("apiextensions.k8s.io", "v1", "customresourcedefinitions")]


def decoded(store: ObjectStore, kind: Kind, body: Any, directive: str | None, patch: bool) -> list[str]:
    """Check a create's object or a merge patch's body (pruning it unless Strict refuses it); the warnings to send."""
    unknown = _unknown(store, kind, body, prune=directive != "Strict")
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


def applied(store: ObjectStore, kind: Kind, namespace: str | None, name: str, body: Any) -> None:
    """Refuse a server-side apply whose configuration names a field the kind's schema does not declare."""
    unknown = _unknown(store, kind, body, prune=False)
    if not unknown:
        return
    texts = [f"{field.applied()}: field not declared in schema" for field in unknown]
    detail = texts[0] if len(texts) == 1 else "errors:\n  " + "\n  ".join(texts)
    group_version = f"{kind.group}/{kind.version}"
    raise ApiError(
        500,
        "",
        f"failed to create typed patch object ({namespace or ''}/{name}; {group_version}, Kind={kind.kind}): {detail}",
    )


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


def _unknown(store: ObjectStore, kind: Kind, body: Any, prune: bool) -> list[UnknownField]:
    schema = _schema(store, kind)
    if schema is None or not isinstance(body, dict):
        return []
    return unknown_fields(body, schema, prune)


def _schema(store: ObjectStore, kind: Kind) -> Schema | None:
    if not kind.custom:
        return builtin_schema(kind.api_version, kind.kind)
    crd = store.get(_CRD_KIND, None, f"{kind.plural}.{kind.group}")
    return None if crd is None else crd_schema(crd, kind.version)
