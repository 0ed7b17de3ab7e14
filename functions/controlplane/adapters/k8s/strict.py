"""Strict writes: every object the control plane writes asks the API server to refuse, not drop, what its kind's schema
does not declare, and a refusal becomes one typed error that names the object and what was refused.

Without `fieldValidation=Strict` a create or merge patch carrying a field the schema does not declare succeeds, the
field silently dropped (the server's default, Warn, only adds a response header nobody reads); server-side apply
refuses such a field whatever the parameter says (KEP-2885), and the parameter adds the refusal of duplicate fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from controlplane.models.errors import KubernetesObjectRejectedError

if TYPE_CHECKING:
    from kubernetes.client.exceptions import ApiException

# Server-side apply answers a field its schema does not declare with a 500 and this message, not a 400
# (kubernetes/kubernetes#122480, #139253): the one refusal known only by its text.
_APPLY_SCHEMA_ERROR = "failed to create typed patch object"


def strict_query() -> list[tuple[str, str]]:
    """The query of a strict write: a new list per call, since the dynamic client appends its own parameters to it."""
    return [("fieldValidation", "Strict")]


def rejection(error: ApiException, obj: Mapping[str, Any]) -> KubernetesObjectRejectedError | None:
    """The API server's refusal of `obj` as a typed error, or None when `error` is not one (a conflict, an outage).

    A refusal is a 400 BadRequest (a strict decoding error: a field the schema does not declare, a duplicate field),
    a 422 Invalid (a value the schema refuses) or server-side apply's 500 for an undeclared field.
    """
    message = _status_message(error)
    apply_schema_error = error.status == 500 and message.startswith(_APPLY_SCHEMA_ERROR)
    if error.status not in (400, 422) and not apply_schema_error:
        return None
    metadata = obj.get("metadata") or {}
    namespace = f"{metadata['namespace']}/" if metadata.get("namespace") else ""
    target = f"{obj.get('kind')} {namespace}{metadata.get('name')}"
    return KubernetesObjectRejectedError(
        f"The cluster's Kubernetes API refused {target} ({obj.get('apiVersion')}): {message}. The cluster's schema for "
        f"{obj.get('kind')} does not accept what the control plane sent: if the kind comes from an operator or "
        "add-on, update it to the version the control plane expects, then retry.",
        {"kind": obj.get("kind"), "name": metadata.get("name"), "status": error.status},
    )


def _status_message(error: ApiException) -> str:
    """The `message` of the Status body the API server answered with (the reason phrase when it sent none)."""
    try:
        body = json.loads(error.body or "")
    except (TypeError, ValueError):
        return str(error.reason or "")
    return str(body.get("message") or error.reason or "") if isinstance(body, dict) else str(error.reason or "")
