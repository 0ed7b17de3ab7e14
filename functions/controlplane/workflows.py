"""The workflow catalog: which ASL file runs each operation kind, and which step module backs each Task.

Used by the CDK stack and the sandbox to wire the same definitions; Lambda code never reads it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from controlplane.models.operations import OperationKind

STATEMACHINES_DIR = Path(__file__).resolve().parents[2] / "statemachines"
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9]+)\}")
FUNCTION_SUFFIX = "FunctionArn"


def definition_path(kind: OperationKind) -> Path:
    return STATEMACHINES_DIR / f"{kind.value}.asl.json"


def definition_text(kind: OperationKind) -> str:
    return definition_path(kind).read_text()


def placeholders(definition: str) -> set[str]:
    return set(_PLACEHOLDER.findall(definition))


def step_module(placeholder: str) -> str:
    """`CreateEksClusterFunctionArn` → `create_eks_cluster` (the module in functions/steps/)."""
    if not placeholder.endswith(FUNCTION_SUFFIX):
        raise ValueError(f"Unknown placeholder {placeholder}")
    stem = placeholder[: -len(FUNCTION_SUFFIX)]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", stem).lower()


def substitute(definition: str, values: dict[str, str]) -> str:
    missing = placeholders(definition) - values.keys()
    if missing:
        raise KeyError(f"No substitution for {sorted(missing)}")
    text = _PLACEHOLDER.sub(lambda match: values[match.group(1)], definition)
    json.loads(text)
    return text


def step_modules() -> list[str]:
    """Every step module any workflow uses, sorted."""
    return sorted({step_module(p) for kind in OperationKind for p in placeholders(definition_text(kind))})
