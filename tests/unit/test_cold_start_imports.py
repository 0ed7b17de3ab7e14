"""What the entry points leave out of their cold start (the times are tests/bench/test_cold_start.py's): the API
handler imports no context's models, no adapter, no `kubernetes` and no idempotency machinery until a request needs
them; the steps handler no adapter and no `kubernetes`; the MCP server nothing of the control plane."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# The models a request's authentication, errors and audit use, whatever its route.
REQUEST_MODELS = {"controlplane.models", "controlplane.models.common", "controlplane.models.errors"}
AUDIT_MODELS = {"controlplane.models.audit"}


def imported_by(statement: str) -> set[str]:
    """The modules `statement` leaves imported in a fresh interpreter."""
    probe = f"import sys; {statement}; print(' '.join(sys.modules))"
    env = {**os.environ, "PYTHONPATH": "functions:."}
    output = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True).stdout
    return set(output.split())


def under(modules: set[str], *packages: str) -> set[str]:
    return {module for module in modules if any(module == p or module.startswith(f"{p}.") for p in packages)}


def test_the_api_handler_imports_no_context_models_adapters_kubernetes_or_idempotency():
    loaded = imported_by("import api.handler")
    assert under(loaded, "controlplane.models") <= REQUEST_MODELS | AUDIT_MODELS
    assert not under(
        loaded,
        "kubernetes",
        "controlplane.adapters",
        "controlplane.workflows",
        "aws_lambda_powertools.utilities.idempotency",
    )


def test_the_steps_handler_imports_no_adapters_and_no_kubernetes():
    assert not under(imported_by("import steps.handler"), "kubernetes", "controlplane.adapters")


@pytest.mark.parametrize("entry", ["mcp_server.lambda_handler", "mcp_server.__main__"])
def test_the_mcp_server_imports_nothing_of_the_control_plane(entry):
    assert not under(imported_by(f"import {entry}"), "controlplane", "api", "steps", "kubernetes", "boto3")
