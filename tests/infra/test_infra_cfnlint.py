"""cfn-lint finds no error (E-level) in any synthesized template, root or nested; warnings are CDK's own style."""

from __future__ import annotations

from typing import Any

from cfnlint.api import ManualArgs, lint_file

REGIONS = ["us-east-1", "eu-west-1"]


def test_cfn_lint_reports_no_errors(synth: Any) -> None:
    errors = [
        f"{path.name} {m.rule.id} {m.path_string if hasattr(m, 'path_string') else ''}: {m.message}"
        for path in synth.template_paths
        for m in lint_file(path, ManualArgs(regions=REGIONS))
        if m.rule.id.startswith("E")
    ]
    assert errors == []
