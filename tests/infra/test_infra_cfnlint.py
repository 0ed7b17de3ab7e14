"""cfn-lint finds no error (E-level) in any synthesized template, root or nested; warnings are CDK's own style."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfnlint.api import ManualArgs, lint_by_config

REGIONS = ["us-east-1", "eu-west-1"]


def test_cfn_lint_reports_no_errors(synth: Any) -> None:
    # One run over every template: cfn-lint loads its rules (and their IAM tables) once a run.
    matches = lint_by_config(ManualArgs(templates=[str(path) for path in synth.template_paths], regions=REGIONS))
    errors = [
        f"{Path(m.filename).name} {m.rule.id} {m.path_string if hasattr(m, 'path_string') else ''}: {m.message}"
        for m in matches
        if m.rule.id.startswith("E")
    ]
    assert errors == []
