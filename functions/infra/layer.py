"""The runtime dependencies as Lambda layers, built on this machine with pip (no Docker).

`layer/` holds the control plane's dependencies (every function but the MCP server); `mcp_layer/`
the remote MCP server's (the MCP SDK and its HTTP stack), so that no other function carries them.

`pip install --platform ... --only-binary=:all:` downloads the wheels built for the Lambda runtime
(CPython 3.12 on Amazon Linux, arm64) whatever the machine running `cdk synth` is. Set the context
key `skipLayerBundling` (tests and `make` do) to synthesize without pip or network: the layer then
holds only `requirements.txt`, which is enough for assertions and must never be deployed.
"""

from __future__ import annotations

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

    def __init__(self, requirements_file: Path = REQUIREMENTS) -> None:
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
        return True


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
                local=cast(ILocalBundling, PipLayerBundling(requirements_file)),
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
