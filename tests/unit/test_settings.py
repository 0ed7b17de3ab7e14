"""The settings model: the one place that names the environment variables, read once and validated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from controlplane.settings import SettingNotSetError, Settings

ROOT = Path(__file__).resolve().parents[2]
VARIABLE = re.compile(r"\bIS_[A-Z][A-Z_]*\b")


def test_a_set_value_is_read_with_its_type() -> None:
    settings = Settings.from_environment(
        {"IS_POLL_SECONDS": "7", "IS_STATE_MACHINE_ARNS": '{"create_cluster": "arn:m"}', "OTHER": "ignored"}
    )
    assert settings.poll_seconds == 7
    assert settings.state_machine_arns == {"create_cluster": "arn:m"}
    assert settings.poll_max_seconds == 7200


def test_an_invalid_value_is_refused_naming_its_variable() -> None:
    with pytest.raises(ValidationError, match="IS_POLL_SECONDS"):
        Settings.from_environment({"IS_POLL_SECONDS": "soon"})
    with pytest.raises(ValidationError, match="IS_DEPLOYMENT_NAME"):
        Settings.from_environment({"IS_DEPLOYMENT_NAME": "Has-Hyphen"})


def test_a_value_without_default_is_required_only_when_read() -> None:
    settings = Settings.from_environment({"IS_OPERATIONS_TABLE": "operations"})
    assert settings.operations_table == "operations"
    with pytest.raises(SettingNotSetError, match=r"Environment variable IS_CLUSTERS_TABLE is not set\."):
        _ = settings.clusters_table


def test_the_pushers_function_defaults_to_the_function_it_runs_in() -> None:
    assert Settings.from_environment({"AWS_LAMBDA_FUNCTION_NAME": "live-logs"}).ws_function_name == "live-logs"
    named = {"AWS_LAMBDA_FUNCTION_NAME": "live-logs", "IS_WS_FUNCTION_NAME": "pushers"}
    assert Settings.from_environment(named).ws_function_name == "pushers"


def test_an_environment_built_from_fields_reads_back_as_the_same_settings() -> None:
    environment = Settings.environment(
        operations_table="operations",
        poll_seconds=0,
        operation_wait_poll_seconds=0.25,
        iam_role_bindings={"arn:aws:iam::123456789012:role/ci": "operator"},
        cognito_issuer="https://cognito-idp.us-east-1.amazonaws.com/pool/",
    )
    assert environment["IS_POLL_SECONDS"] == "0"
    assert environment["IS_IAM_ROLE_BINDINGS"] == '{"arn:aws:iam::123456789012:role/ci":"operator"}'
    settings = Settings.from_environment(environment)
    assert (settings.operations_table, settings.poll_seconds, settings.operation_wait_poll_seconds) == (
        "operations",
        0,
        0.25,
    )
    assert settings.iam_role_bindings == {"arn:aws:iam::123456789012:role/ci": "operator"}
    assert settings.cognito_issuer == "https://cognito-idp.us-east-1.amazonaws.com/pool"


def test_an_environment_names_only_fields_of_the_model() -> None:
    with pytest.raises(KeyError):
        Settings.environment(operation_table="operations")


def test_the_role_boundaries_are_read_together() -> None:
    boundaries = Settings(
        workload_role_boundary_arn="arn:w", autoscaling_role_boundary_arn="arn:a", service_role_boundary_arn="arn:s"
    ).role_boundaries
    assert (boundaries.workload, boundaries.autoscaling, boundaries.service) == ("arn:w", "arn:a", "arn:s")


def test_no_source_but_the_model_names_an_environment_variable() -> None:
    """The runtime, the CDK app and the sandbox all go through `Settings` (field → variable)."""
    named = {
        str(path.relative_to(ROOT)): VARIABLE.findall(path.read_text())
        for path in (ROOT / "functions").rglob("*.py")
        if path != ROOT / "functions/controlplane/settings.py"
    }
    assert {path: names for path, names in named.items() if names} == {}


def test_the_mcp_server_reads_variables_of_the_model() -> None:
    """Its asset ships mcp_server alone, so it reads its three variables itself; the stack sets them from the model."""
    handler = (ROOT / "mcp_server/lambda_handler.py").read_text()
    read = set(re.findall(r'os\.environ\["(IS_[A-Z_]+)"\]', handler))
    assert read == {Settings.variable(field) for field in ("api_url", "cognito_issuer", "mcp_client_id")}


def test_the_readme_describes_every_variable_of_the_model() -> None:
    configuration = (ROOT / "README.md").read_text().split("## Configuration", 1)[1].split("\n## ", 1)[0]
    described = set(VARIABLE.findall(configuration))
    assert {Settings.variable(field) for field in Settings.model_fields} <= described
