"""Every generated state machine, with its placeholders substituted as the stack substitutes them, validated by the
Amazon States Language validator (npm `asl-validator`, pinned in frontend/package.json, installed by `npm ci`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from controlplane.models.operations import OperationKind
from controlplane.workflows import definition_text, placeholders, step_key, substitute
from infra.access.steps import group_of

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = ROOT / "frontend" / "node_modules" / "asl-validator" / "dist" / "bin" / "asl-validator.js"


def function_arn(placeholder: str) -> str:
    """What CDK puts in place of `${<Step>FunctionArn}`: the ARN of the function serving the step's group."""
    group = group_of(step_key(placeholder))
    return f"arn:aws:lambda:us-west-2:123456789012:function:instantstart-steps-{group.replace('_', '-')}"


def validate(paths: list[Path]) -> subprocess.CompletedProcess[str]:
    assert VALIDATOR.is_file(), f"{VALIDATOR} is missing: run `make console` (npm ci in frontend/)"
    command = ["node", str(VALIDATOR), *(arg for path in paths for arg in ("--json-path", str(path)))]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)


def test_every_state_machine_is_valid_amazon_states_language_once_substituted(tmp_path: Path) -> None:
    paths = []
    for kind in OperationKind:
        text = definition_text(kind)
        path = tmp_path / f"{kind.value}.asl.json"
        path.write_text(substitute(text, {p: function_arn(p) for p in placeholders(text)}, partition="aws"))
        paths.append(path)

    result = validate(paths)

    print(f"\nasl-validator: {len(paths)} state machines")
    assert len(paths) == len(OperationKind) == 20
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_validator_refuses_a_state_machine_that_is_not_valid(tmp_path: Path) -> None:
    path = tmp_path / "broken.asl.json"
    path.write_text(json.dumps({"StartAt": "Go", "States": {"Go": {"Type": "Taks", "End": True}}}))

    result = validate([path])

    assert result.returncode == 1, result.stdout + result.stderr
