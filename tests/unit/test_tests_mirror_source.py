"""Tests mirror the source: every directory of tests/unit is a package of the control plane (tests/unit/core/clusters
tests controlplane/core/clusters), an entry point of functions/ or the MCP server, and every directory of
tests/sandbox a package of the sandbox. A source package that moves or goes leaves a test directory naming nothing."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ROOT / "functions"
# Where each suite's directories are looked up, in turn. The sandbox and infra have suites of their own.
SOURCES = {
    "unit": (FUNCTIONS / "controlplane", FUNCTIONS, ROOT),
    "sandbox": (FUNCTIONS / "sandbox",),
}
OWN_SUITES = {"unit": ("sandbox", "infra"), "sandbox": ()}


def mirrors_a_package(suite: str, directory: Path) -> bool:
    if directory.parts[0] in OWN_SUITES[suite]:
        return False
    return any((source / directory / "__init__.py").is_file() for source in SOURCES[suite])


@pytest.mark.parametrize("suite", sorted(SOURCES))
def test_every_test_directory_mirrors_a_source_package(suite: str) -> None:
    tests = ROOT / "tests" / suite
    directories = (path.relative_to(tests) for path in tests.rglob("*") if path.is_dir())
    strays = [str(path) for path in directories if path.name != "__pycache__" and not mirrors_a_package(suite, path)]
    assert sorted(strays) == []
