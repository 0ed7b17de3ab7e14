"""cfn-lint finds no error (E-level) in the synthesized template; warnings are CDK's own style."""

from __future__ import annotations

from typing import Any

from cfnlint.api import ManualArgs, lint_file

REGIONS = ["us-east-1", "eu-west-1"]


def test_cfn_lint_reports_no_errors(synth: Any) -> None:
    matches = lint_file(synth.template_path, ManualArgs(regions=REGIONS))
    errors = [
        f"{m.rule.id} {m.path_string if hasattr(m, 'path_string') else ''}: {m.message}"
        for m in matches
        if m.rule.id.startswith("E")
    ]
    assert errors == []
