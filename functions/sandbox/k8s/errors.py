"""Refusals of the emulated Kubernetes API, each rendered by the HTTP layer as a ``Status`` body."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sandbox.k8s.kinds import Kind

JsonObject = dict[str, Any]


class ApiError(Exception):
    """A failed request: HTTP code, ``Status.reason``, message and optional details."""

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
            **({"reason": self.reason} if self.reason else {}),  # an unclassified failure (a 500) names none
            **({"details": self.details} if self.details else {}),
            "code": self.code,
        }


def details(kind: Kind, name: str) -> JsonObject:
    return {"name": name, **({"group": kind.group} if kind.group else {}), "kind": kind.plural}


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def not_found(kind: Kind, name: str) -> ApiError:
    return ApiError(404, "NotFound", f'{kind.resource} "{name}" not found', details(kind, name))


def no_such_resource() -> ApiError:
    return ApiError(404, "NotFound", "the server could not find the requested resource")


def method_not_allowed() -> ApiError:
    return ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource")


def unsupported_media(accepted: Iterable[str]) -> ApiError:
    listed = ", ".join(accepted)
    return ApiError(
        415,
        "UnsupportedMediaType",
        f"the body of the request was in an unknown format - accepted media types include: {listed}",
    )


def conflict(kind: Kind, name: str) -> ApiError:
    return ApiError(
        409,
        "Conflict",
        f'Operation cannot be fulfilled on {kind.resource} "{name}": the object has been modified; '
        "please apply your changes to the latest version and try again",
        details(kind, name),
    )


_CAUSE_REASONS = {
    "Required value": "FieldValueRequired",
    "Invalid value": "FieldValueInvalid",
    "Unsupported value": "FieldValueNotSupported",
}


def invalid(kind: Kind, name: str, causes: list[tuple[str, str]]) -> ApiError:
    """422 Invalid from ``(field, detail)`` causes, formatted like the real server.

    Each detail starts with its error type (``Required value``, ``Invalid value``, ``Unsupported value``).
    """
    texts = [f"{field}: {detail}" for field, detail in causes]
    summary = texts[0] if len(texts) == 1 else f"[{', '.join(texts)}]"
    body = {
        **details(kind, name),
        "kind": kind.kind,
        "causes": [
            {"reason": _CAUSE_REASONS[detail.split(":")[0]], "message": detail, "field": field}
            for field, detail in causes
        ],
    }
    return ApiError(422, "Invalid", f'{kind.qualified_kind} "{name}" is invalid: {summary}', body)
