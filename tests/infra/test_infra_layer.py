"""The dependency layer (the pinned runtime dependencies, built by pip for the Lambda platform) and the bytecode
that every bundled asset is compiled to for the Lambda runtime's Python."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Stack
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from infra import layer
from infra.lambdas import FUNCTIONS_DIR, CompiledSourceBundling
from infra.layer import (
    ARCHITECTURE,
    LAYER_PREFIX,
    MCP_LAYER_SOURCE,
    PYTHON_VERSION,
    RUNTIME,
    PipLayerBundling,
    compile_command,
    pip_command,
    requirements,
    runtime_python,
)

ROOT = Path(__file__).resolve().parents[2]


def test_layer_requirements_are_the_project_runtime_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert sorted(requirements()) == sorted(project["dependencies"])
    assert all("==" in requirement for requirement in requirements())  # pinned


def test_the_layer_ships_the_sdk_the_tests_run() -> None:
    """The runtime's own boto3 lags (botocore 1.40 lacks CreateCluster's NodeProvisioningMode): the layer carries the
    exact boto3 and botocore installed here, whose models tests/contract checks every call site against."""
    pins = {Requirement(line).name: str(Requirement(line).specifier) for line in requirements()}
    assert pins["boto3"] == f"=={importlib.metadata.version('boto3')}"
    assert pins["botocore"] == f"=={importlib.metadata.version('botocore')}"


def test_mcp_layer_requirements_are_the_projects_pins_of_the_mcp_server() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = {d for group in project["optional-dependencies"].values() for d in group} | set(project["dependencies"])
    mcp_requirements = requirements(MCP_LAYER_SOURCE / "requirements.txt")
    assert set(project["optional-dependencies"]["mcp"]) <= set(mcp_requirements)
    assert set(mcp_requirements) <= pins  # the same versions the tests run with
    assert any(requirement.startswith("httpx==") for requirement in mcp_requirements)  # mcp_server.client


def test_pip_targets_the_lambda_platform(tmp_path: Path) -> None:
    command = pip_command(str(tmp_path))
    assert command[1:4] == ["-m", "pip", "install"]
    assert command[command.index("--target") + 1] == str(tmp_path / "python")
    assert command[command.index("--python-version") + 1] == PYTHON_VERSION
    assert RUNTIME.name == f"python{PYTHON_VERSION}"
    platforms = [command[i + 1] for i, arg in enumerate(command) if arg == "--platform"]
    assert platforms and all(p.endswith("_aarch64") for p in platforms)
    assert ARCHITECTURE.name == "arm64"
    assert "--only-binary=:all:" in command and "--implementation" in command


def test_pip_is_constrained_to_the_runtime_botocore_dependencies(tmp_path: Path) -> None:
    command = pip_command(str(tmp_path))
    constraints = Path(command[command.index("--constraint") + 1]).read_text().splitlines()
    assert "python-dateutil==2.9.0.post0" in constraints  # botocore requires python-dateutil<3


def test_skipped_bundling_ships_only_the_requirement_list(synth: Any) -> None:
    # Not CDK's AWS CLI layer, which its bucket deployment handler (the console's upload) runs with.
    ours = {layer["Ref"] for function in synth.functions().values() for layer in function["Properties"]["Layers"]}
    layers = [synth.resources[key] for key in ours]
    assert len(layers) == 2  # the control plane's and the MCP server's
    for version in layers:
        assert version["Properties"]["CompatibleRuntimes"] == ["python3.12"]
        assert version["Properties"]["CompatibleArchitectures"] == ["arm64"]
    layer_assets = [p for p in synth.outdir.glob("asset.*") if (p / "requirements.txt").is_file()]
    assert [sorted(x.name for x in p.iterdir()) for p in layer_assets] == [["requirements.txt"]] * 2


def test_local_bundling_runs_pip_and_reports_failure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls = []

    def run(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        calls.append(command)
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(layer.subprocess, "run", run)
    assert PipLayerBundling("python3.12").try_bundle(str(tmp_path), None) is True
    assert calls == [pip_command(str(tmp_path)), compile_command("python3.12", str(tmp_path), LAYER_PREFIX)]
    mcp_requirements = MCP_LAYER_SOURCE / "requirements.txt"
    assert PipLayerBundling("python3.12", mcp_requirements).try_bundle(str(tmp_path), None) is True
    assert calls[-2][calls[-2].index("--requirement") + 1] == str(mcp_requirements)

    def fail(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(command, 1, "", "no index")

    monkeypatch.setattr(layer.subprocess, "run", fail)
    with pytest.raises(RuntimeError, match="skipLayerBundling"):
        PipLayerBundling("python3.12").try_bundle(str(tmp_path), None)


def test_bytecode_is_compiled_unchecked_so_it_stays_valid_whatever_the_zip_does_to_file_times() -> None:
    command = compile_command("python3.12", "/tmp/out", "/var/task")
    assert command[:3] == ["python3.12", "-m", "compileall"]
    assert command[command.index("--invalidation-mode") + 1] == "unchecked-hash"
    assert command[command.index("-s") + 1] == "/tmp/out" and command[command.index("-p") + 1] == "/var/task"
    assert "--no-compile" in pip_command("/tmp/out")  # pip would compile with the synthesizing Python


def test_bytecode_is_refused_from_a_python_other_than_the_runtimes() -> None:
    stack = Stack(App(context={"runtimePython": sys.executable}), "Probe")
    if sys.version_info[:2] == (3, 12):
        assert runtime_python(stack) == sys.executable
    else:
        with pytest.raises(RuntimeError, match="runtimePython"):
            runtime_python(stack)


def test_the_code_asset_ships_runtime_bytecode_and_leaves_out_infra_and_sandbox(tmp_path: Path) -> None:
    try:
        python = runtime_python(Stack(App(), "Probe"))
    except RuntimeError:
        pytest.skip(f"needs python{PYTHON_VERSION} on PATH, the Lambda runtime's CPython")
    bundling = CompiledSourceBundling(python, FUNCTIONS_DIR, leave_out=("infra", "sandbox"))
    assert bundling.try_bundle(str(tmp_path)) is True
    assert {"api", "controlplane", "steps"} <= {p.name for p in tmp_path.iterdir()}
    assert not {"infra", "sandbox"} & {p.name for p in tmp_path.iterdir()}
    pyc = next((tmp_path / "api" / "__pycache__").glob("handler.cpython-312.pyc"))
    header = pyc.read_bytes()[:8]
    assert int.from_bytes(header[4:8], "little") == 0b01  # hash-based, source not checked
    assert not list(tmp_path.rglob("*.cpython-311.pyc"))


def _pins() -> dict[str, str]:
    """constraints.txt as {canonical name: the one version it pins}."""
    pins = {}
    for line in requirements(layer.CONSTRAINTS):
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"{line}: a constraint pins one version"
        pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


LAYER_REQUIREMENTS = [*requirements(), *requirements(MCP_LAYER_SOURCE / "requirements.txt")]


@pytest.mark.parametrize("distribution", ["botocore", *(Requirement(r).name for r in LAYER_REQUIREMENTS)])
def test_constraints_satisfy_what_botocore_and_the_layer_requirements_require(distribution: str) -> None:
    """pip resolves the layer against the pins: a pin outside a requirement of botocore (which the Lambda runtime
    provides) or of a layer dependency fails the layer build, or breaks the runtime's boto3 (python-dateutil 4.x
    against botocore's <3)."""
    pins = _pins()
    checked = 0
    for line in importlib.metadata.requires(distribution) or []:
        requirement = Requirement(line)
        if requirement.marker is not None or canonicalize_name(requirement.name) not in pins:
            continue
        assert requirement.specifier.contains(pins[canonicalize_name(requirement.name)], prereleases=True), (
            f"constraints.txt pins {requirement.name}=={pins[canonicalize_name(requirement.name)]}, "
            f"but {distribution} requires {requirement}"
        )
        checked += 1
    if distribution in ("botocore", "kubernetes"):
        assert checked >= 2  # python-dateutil and urllib3: both share them with the runtime's botocore


def test_constraints_pin_every_dependency_the_layer_shares_with_the_runtime_botocore() -> None:
    botocore = {canonicalize_name(Requirement(r).name) for r in importlib.metadata.requires("botocore") or []}
    layer_needs = {
        canonicalize_name(needed.name)
        for requirement in LAYER_REQUIREMENTS
        for needed in map(Requirement, importlib.metadata.requires(Requirement(requirement).name) or [])
        if needed.marker is None
    }
    assert botocore & layer_needs <= set(_pins())
