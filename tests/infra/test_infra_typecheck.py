"""mypy reads only the aws_cdk modules the infra code imports (pyproject.toml): a module imported but not listed there
would be skipped, and every call into it typed Any."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_cdk_modules() -> set[str]:
    sources = [*(ROOT / "functions").rglob("*.py"), *(ROOT / "mcp_server").rglob("*.py"), ROOT / "app.py"]
    found = set()
    for text in (path.read_text() for path in sources):
        if "aws_cdk" not in text:  # parsing every module costs seconds; a module that never names it imports none
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "aws_cdk"}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "aws_cdk":
                found.add(node.module)
                if node.module == "aws_cdk":  # `from aws_cdk import aws_iam as iam` imports a module
                    found |= {f"aws_cdk.{alias.name}" for alias in node.names if alias.name.startswith("aws_")}
    return found


def test_mypy_follows_every_aws_cdk_module_the_code_imports() -> None:
    overrides = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["overrides"]
    followed = {module for o in overrides if o.get("follow_imports") == "normal" for module in o["module"]}
    imported = imported_cdk_modules()
    assert {"aws_cdk", "aws_cdk.aws_iam"} <= imported
    assert imported - followed == set()
