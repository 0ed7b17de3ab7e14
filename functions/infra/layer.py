"""The runtime dependencies as Lambda layers, built on this machine with pip (no Docker), and the bytecode
compilation that every bundled asset (layers and function code) gets for the Lambda runtime's Python.

`layer/` holds the control plane's dependencies (every function but the MCP server); `mcp_layer/`
the remote MCP server's (the MCP SDK and its HTTP stack), so that no other function carries them.

`pip install --platform ... --only-binary=:all:` downloads the wheels built for the Lambda runtime
(CPython 3.12 on Amazon Linux, arm64) whatever the machine running `cdk synth` is. pip does not compile
(it would use the synthesizing Python); CPython 3.12 then compiles every module with unchecked-hash pycs:
Lambda's code is read-only, so modules without a pyc are compiled again on every cold start, and
timestamp pycs would not match the times the asset zip gives the sources. The compiling interpreter is
`python3.12` on PATH, or the context key `runtimePython` (a path). Set the context key
`skipLayerBundling` (tests and `make` do) to synthesize without pip, network or Python 3.12: the layer
then holds only `requirements.txt` and the code assets their sources, enough for assertions and never
to be deployed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import jsii
from aws_cdk import BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

LAYER_SOURCE = Path(__file__).resolve().parent / "layer"
MCP_LAYER_SOURCE = Path(__file__).resolve().parent / "mcp_layer"
REQUIREMENTS = LAYER_SOURCE / "requirements.txt"
# Pins of transitive dependencies, shared by both layers (outside the layer sources: never shipped).
CONSTRAINTS = Path(__file__).resolve().parent / "constraints.txt"
RUNTIME = lambda_.Runtime.PYTHON_3_12
ARCHITECTURE = lambda_.Architecture.ARM_64
PYTHON_VERSION = "3.12"
# Wheels for Lambda's arm64 runtime; manylinux_2_28 too, for packages that no longer publish 2014 wheels.
PIP_PLATFORMS = ("manylinux2014_aarch64", "manylinux_2_28_aarch64")
SKIP_CONTEXT_KEY = "skipLayerBundling"
RUNTIME_PYTHON_CONTEXT_KEY = "runtimePython"
LAYER_PREFIX = "/opt"  # where Lambda mounts a layer (its modules are under /opt/python)


def pip_command(output_dir: str, requirements_file: Path = REQUIREMENTS) -> list[str]:
    platforms = [arg for platform in PIP_PLATFORMS for arg in ("--platform", platform)]
    return [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--requirement",
        str(requirements_file),
        "--constraint",
        str(CONSTRAINTS),
        "--target",
        str(Path(output_dir) / "python"),
        *platforms,
        "--implementation",
        "cp",
        "--python-version",
        PYTHON_VERSION,
        "--only-binary=:all:",
        "--no-compile",
        "--disable-pip-version-check",
        "--quiet",
    ]


@jsii.implements(ILocalBundling)
class PipLayerBundling:
    """Local bundling: pip installs the requirements into `<output_dir>/python` (the layer layout)."""

    def __init__(self, runtime_python: str, requirements_file: Path = REQUIREMENTS) -> None:
        self._runtime_python = runtime_python
        self._requirements_file = requirements_file

    # jsii passes the BundlingOptions as a second positional argument.
    def try_bundle(self, output_dir: str, options: Any = None) -> bool:
        command = pip_command(output_dir, self._requirements_file)
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(
                "Building the dependency layer with pip failed (it needs access to PyPI). Synthesize "
                f"with `-c {SKIP_CONTEXT_KEY}=true` to skip it (never deploy that).\n{result.stderr}"
            )
        compile_bytecode(self._runtime_python, output_dir, LAYER_PREFIX)
        return True


def compile_command(runtime_python: str, directory: str, prefix: str) -> list[str]:
    """compileall with the runtime's Python: unchecked-hash pycs, whose paths read as they will in Lambda."""
    return [
        runtime_python,
        "-m",
        "compileall",
        "-q",
        "-j",
        "0",
        "--invalidation-mode",
        "unchecked-hash",
        "-s",
        directory,
        "-p",
        prefix,
        directory,
    ]


def compile_bytecode(runtime_python: str, directory: str, prefix: str) -> None:
    """Compile every module under `directory` (which Lambda serves under `prefix`) to bytecode, in place."""
    result = subprocess.run(
        compile_command(runtime_python, directory, prefix), capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"Compiling {directory} with {runtime_python} failed.\n{result.stdout}{result.stderr}")


def runtime_python(scope: Construct) -> str:
    """The CPython of the Lambda runtime's version that compiles the bytecode (pycs are version-specific)."""
    configured = scope.node.try_get_context(RUNTIME_PYTHON_CONTEXT_KEY)
    candidate = str(configured) if configured else shutil.which(f"python{PYTHON_VERSION}")
    version = (
        subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if candidate
        else ""
    )
    if candidate is None or version != PYTHON_VERSION:
        raise RuntimeError(
            f"Bundling compiles bytecode for the Lambda runtime with CPython {PYTHON_VERSION}: put "
            f"python{PYTHON_VERSION} on PATH or pass `-c {RUNTIME_PYTHON_CONTEXT_KEY}=/path/to/python{PYTHON_VERSION}` "
            f"(found {candidate or 'none'}, version {version or 'unknown'}). Synthesize with "
            f"`-c {SKIP_CONTEXT_KEY}=true` to skip bundling (never deploy that)."
        )
    return candidate


def skip_bundling(scope: Construct) -> bool:
    value = scope.node.try_get_context(SKIP_CONTEXT_KEY)
    return value is True or str(value).lower() == "true"


def dependencies_layer(scope: Construct, construct_id: str, source: Path = LAYER_SOURCE) -> lambda_.LayerVersion:
    """The layer of the requirements in `<source>/requirements.txt`."""
    requirements_file = source / "requirements.txt"
    if skip_bundling(scope):
        code = lambda_.Code.from_asset(str(source))
    else:
        code = lambda_.Code.from_asset(
            str(source),
            bundling=BundlingOptions(
                image=DockerImage.from_registry("none"),
                local=cast(ILocalBundling, PipLayerBundling(runtime_python(scope), requirements_file)),
            ),
        )
    return lambda_.LayerVersion(
        scope,
        construct_id,
        code=code,
        compatible_runtimes=[RUNTIME],
        compatible_architectures=[ARCHITECTURE],
        description="InstantStart runtime dependencies: " + ", ".join(requirements(requirements_file)),
    )


def requirements(requirements_file: Path = REQUIREMENTS) -> list[str]:
    lines = (line.strip() for line in requirements_file.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]
