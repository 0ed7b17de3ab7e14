"""Label and field selectors: parsed from their query-string syntax, matched against plain-dict objects.

Malformed selectors raise ValueError; the HTTP layer turns that into 400 BadRequest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sandbox.k8s.kinds import FIELD_LABELS, Kind

JsonObject = dict[str, Any]

_LABEL_KEY = r"[A-Za-z0-9][-A-Za-z0-9_./]*"
_LABEL_VALUE = r"[-A-Za-z0-9_.]*"
_SET_REQUIREMENT = re.compile(rf"({_LABEL_KEY})\s+(in|notin)\s*\(([^()]*)\)")
_EQUALITY_REQUIREMENT = re.compile(rf"({_LABEL_KEY})\s*(==|=|!=)\s*({_LABEL_VALUE})")
_EXISTS_REQUIREMENT = re.compile(rf"(!?)\s*({_LABEL_KEY})")
_FIELD_REQUIREMENT = re.compile(r"([A-Za-z0-9_.]+)\s*(==|!=|=)\s*(.*)")


@dataclass(frozen=True)
class LabelRequirement:
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


@dataclass(frozen=True)
class FieldRequirement:
    path: tuple[str, ...]
    equal: bool  # "=" / "==" when True, "!=" when False
    value: str

    def matches(self, obj: JsonObject) -> bool:
        return (_field_value(obj, self.path) == self.value) == self.equal


def parse_label_selector(text: str) -> list[LabelRequirement]:
    """``app=web,tier!=front``, ``tier``, ``!tier``, ``app in (a, b)``, ``tier notin (x)``."""
    if not text.strip():
        return []
    requirements = []
    for piece in re.split(r",(?![^()]*\))", text):
        piece = piece.strip()
        if match := _SET_REQUIREMENT.fullmatch(piece):
            values = frozenset(value.strip() for value in match[3].split(","))
            requirements.append(LabelRequirement(match[1], match[2], values))
        elif match := _EQUALITY_REQUIREMENT.fullmatch(piece):
            operator = "notin" if match[2] == "!=" else "in"
            requirements.append(LabelRequirement(match[1], operator, frozenset({match[3]})))
        elif match := _EXISTS_REQUIREMENT.fullmatch(piece):
            requirements.append(LabelRequirement(match[2], "!" if match[1] else "exists"))
        else:
            raise ValueError(f"unable to parse requirement: {piece!r}")
    return requirements


def parse_field_selector(text: str, kind: Kind) -> list[FieldRequirement]:
    """``status.phase=Running,metadata.namespace!=kube-system``, limited to the fields ``kind`` supports."""
    if not text.strip():
        return []
    supported = {"metadata.name", "metadata.namespace"} | FIELD_LABELS.get(kind.storage, frozenset())
    requirements = []
    for piece in text.split(","):
        match = _FIELD_REQUIREMENT.fullmatch(piece.strip())
        if not match:
            raise ValueError(f"invalid field selector: {piece!r}")
        if match[1] not in supported:
            raise ValueError(f'field label not supported: "{match[1]}"')
        requirements.append(FieldRequirement(tuple(match[1].split(".")), match[2] != "!=", match[3].strip()))
    return requirements


def _field_value(obj: JsonObject, path: tuple[str, ...]) -> str:
    value: Any = obj
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)
