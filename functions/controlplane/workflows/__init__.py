"""Workflows declared once: the declarations, the ASL they generate, and the names that tie a Task to its step.

`spec` holds the building blocks, `definitions` the twelve workflows, `asl` the generator; `python -m
controlplane.workflows` rewrites `statemachines/<kind>.asl.json` from them (a contract test keeps the files
equal). This module is what the CDK stack and the sandbox read: the checked-in files, their `${…FunctionArn}`
placeholders and the step key each placeholder names, and `${Partition}`, the ARN partition of the service
integrations. It imports nothing from the rest of the package.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from controlplane.models.operations import OperationKind

FUNCTION_SUFFIX = "FunctionArn"
# `${Partition}`: the partition the state machine runs in (aws, aws-cn, aws-us-gov), so no ARN names `aws` literally.
PARTITION = "Partition"
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9]+)\}")
_FUNCTION_PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9]+" + FUNCTION_SUFFIX + r")\}")
_WORD_START = re.compile(r"(?<!^)(?=[A-Z])")


def step_key(name: str) -> str:
    """The step's key from its Task name, its placeholder or the key itself.

    "Create FSx File System", `CreateFsxFileSystemFunctionArn` and `create_fsx_file_system` are one step.
    """
    name = name.strip()
    if name.endswith(FUNCTION_SUFFIX):
        name = _WORD_START.sub(" ", name.removesuffix(FUNCTION_SUFFIX))
    return "_".join(name.lower().replace("-", " ").replace("_", " ").split())


def placeholder(step: str) -> str:
    """The ASL placeholder of a step's function: "Ensure S3 CSI Driver Role" → `EnsureS3CsiDriverRoleFunctionArn`."""
    return "".join(word.capitalize() for word in step_key(step).split("_")) + FUNCTION_SUFFIX


def definition_path(kind: OperationKind) -> Path:
    """`statemachines/<kind>.asl.json` at the repository root (resolved on use: Lambda code imports this module)."""
    return Path(__file__).resolve().parents[3] / "statemachines" / f"{kind.value}.asl.json"


def definition_text(kind: OperationKind) -> str:
    return definition_path(kind).read_text()


def placeholders(definition: str) -> set[str]:
    """The step functions' placeholders (`${<Step>FunctionArn}`) of a definition."""
    return set(_FUNCTION_PLACEHOLDER.findall(definition))


def substitute(definition: str, functions: dict[str, str], partition: str) -> str:
    """The definition with each step function's ARN and the partition filled in."""
    values = {**functions, PARTITION: partition}
    missing = set(_PLACEHOLDER.findall(definition)) - values.keys()
    if missing:
        raise KeyError(f"No substitution for {sorted(missing)}")
    text = _PLACEHOLDER.sub(lambda match: values[match.group(1)], definition)
    json.loads(text)
    return text


def step_keys() -> list[str]:
    """Every step any workflow uses, sorted."""
    return sorted({step_key(p) for kind in OperationKind for p in placeholders(definition_text(kind))})
