"""The control plane's settings: the one model that names the environment variables (`IS_…`) its functions read.

The runtime reads the environment once, on first use (`settings()`, never at import), and validates what is set:
an error names the variable. The CDK app builds each function's environment from the same fields
(`Settings.environment`), and the sandbox sets its own through it, so a variable's name is written here alone.
A value without a default is required only where it is used (a function gets the variables it uses): reading it
unset raises `SettingNotSetError`, naming the variable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, Json, field_validator

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, DEPLOYMENT_NAME_PATTERN
from controlplane.core.ports.iam import RoleBoundaries

_UNSET: Any = object()


class SettingNotSetError(RuntimeError):
    def __init__(self, variable: str) -> None:
        super().__init__(f"Environment variable {variable} is not set.")
        self.variable = variable


def _variable(name: str, default: Any = _UNSET, *fallbacks: str, **constraints: Any) -> Any:
    """A field read from the environment variable `name` (or, unset, from the first of `fallbacks` set)."""
    if fallbacks:
        constraints["validation_alias"] = AliasChoices(name, *fallbacks)
    return Field(default, alias=name, **constraints)


class Settings(BaseModel):
    # Built on first use, not at import (cold start).
    model_config = ConfigDict(
        frozen=True, extra="ignore", validate_by_name=True, validate_by_alias=True, defer_build=True
    )

    deployment_name: str = _variable(
        "IS_DEPLOYMENT_NAME", DEFAULT_DEPLOYMENT_NAME, pattern=f"^{DEPLOYMENT_NAME_PATTERN}$"
    )
    """The deployment this function belongs to (CDK context `deploymentName`): it starts the names of the roles the
    steps create and marks what they own."""

    # DynamoDB tables (`controlplane.adapters.aws.tables.TABLES` names each table's field).
    operations_table: str = _variable("IS_OPERATIONS_TABLE")
    clusters_table: str = _variable("IS_CLUSTERS_TABLE")
    audit_table: str = _variable("IS_AUDIT_TABLE")
    confirmations_table: str = _variable("IS_CONFIRMATIONS_TABLE")
    idempotency_table: str = _variable("IS_IDEMPOTENCY_TABLE")
    recipe_values_table: str = _variable("IS_RECIPE_VALUES_TABLE")
    events_table: str = _variable("IS_EVENTS_TABLE")
    event_waits_table: str = _variable("IS_EVENT_WAITS_TABLE")
    drift_table: str = _variable("IS_DRIFT_TABLE")
    connections_table: str = _variable("IS_CONNECTIONS_TABLE")
    """The WebSocket API's connections and the log pushers' leases."""

    state_machine_arns: Json[dict[str, str]] = _variable("IS_STATE_MACHINE_ARNS", {})
    """Each workflow's state machine by operation kind."""

    # The control plane's identities on the clusters (`controlplane.core.ports.eks.ControlPlaneAccess`).
    kubernetes_role_arn: str = _variable("IS_KUBERNETES_ROLE_ARN", "")
    """The role steps sign EKS bearer tokens as: cluster admin through its access entry."""
    kubernetes_view_role_arn: str = _variable("IS_KUBERNETES_VIEW_ROLE_ARN", "")
    """The role the API signs EKS bearer tokens as: read-only (AmazonEKSViewPolicy) through its access entry."""
    kubernetes_jobs_role_arn: str = _variable("IS_KUBERNETES_JOBS_ROLE_ARN", "")
    """The role the API signs EKS bearer tokens as to create and delete jobs (RBAC: job objects only)."""

    # The permissions boundaries of the roles the steps create (`role_boundaries`).
    workload_role_boundary_arn: str = _variable("IS_WORKLOAD_ROLE_BOUNDARY_ARN")
    autoscaling_role_boundary_arn: str = _variable("IS_AUTOSCALING_ROLE_BOUNDARY_ARN")
    service_role_boundary_arn: str = _variable("IS_SERVICE_ROLE_BOUNDARY_ARN")

    event_forwarding_role_arn: str = _variable("IS_EVENT_FORWARDING_ROLE_ARN")
    """The role EventBridge assumes to put another Region's HyperPod events on this Region's default bus."""

    # Who may call the API (`api.auth`).
    iam_role_bindings: Json[dict[str, str]] = _variable("IS_IAM_ROLE_BINDINGS", {})
    """The IAM roles allowed to call the SigV4 routes, and their role (`viewer`, `operator`, `admin`)."""
    mcp_role_arn: str = _variable("IS_MCP_ROLE_ARN", "")
    """The remote MCP server's execution role: the one caller that may act on behalf of a user."""
    mcp_max_role: str = _variable("IS_MCP_MAX_ROLE", "viewer")
    """The strongest role the MCP server may act with (a user's own role still bounds each request)."""

    # Waits.
    poll_seconds: int = _variable("IS_POLL_SECONDS", 5, ge=0)
    """A wait loop's first wait; later waits grow with the time waited (core.polling)."""
    poll_max_seconds: int = _variable("IS_POLL_MAX_SECONDS", 7200, ge=0)
    """The longest wait between two checks of a wait loop."""
    operation_wait_poll_seconds: float = _variable("IS_OPERATION_WAIT_POLL_SECONDS", 0.5, gt=0)
    """How often a long-polling `GET /operations/{id}/wait` re-reads the operation."""
    workload_wait_poll_seconds: float = _variable("IS_WORKLOAD_WAIT_POLL_SECONDS", 2.0, gt=0)
    """How often a workload's long poll (`GET …/jobs/{jobName}/wait` and the like) re-reads it from Kubernetes."""

    # Live logs (`ws`).
    ws_management_url: str = _variable("IS_WS_MANAGEMENT_URL")
    """The WebSocket API's management endpoint (`https://<api-id>.execute-api.<region>.amazonaws.com/<stage>`)."""
    ws_function_name: str = _variable("IS_WS_FUNCTION_NAME", _UNSET, "AWS_LAMBDA_FUNCTION_NAME")
    """The function a log pusher runs in (the WebSocket function itself, started asynchronously)."""
    ws_pusher_seconds: float = _variable("IS_WS_PUSHER_SECONDS", 60.0, gt=0)
    """How long one pusher invocation runs before it starts its successor (well under the function's timeout)."""
    ws_pusher_tick_seconds: float = _variable("IS_WS_PUSHER_TICK_SECONDS", 1.0, gt=0)
    """How often a pusher reads the followed log."""
    cognito_issuer: str = _variable("IS_COGNITO_ISSUER")
    """The user pool's issuer URL (`https://cognito-idp.<region>.amazonaws.com/<pool id>`)."""
    console_client_id: str = _variable("IS_CONSOLE_CLIENT_ID")
    """The console's app client: the audience of the ID tokens the WebSocket authorizer accepts."""

    # The remote MCP server's function (`mcp_server.lambda_handler` reads these itself: its asset is mcp_server alone).
    api_url: str = _variable("IS_API_URL")
    """The API's SigV4 base URL the MCP server calls."""
    mcp_client_id: str = _variable("IS_MCP_CLIENT_ID")
    """The MCP app client: the audience of the access tokens the MCP server accepts."""

    @field_validator("cognito_issuer")
    @classmethod
    def _without_trailing_slash(cls, issuer: str) -> str:
        return issuer.rstrip("/")

    def model_post_init(self, context: Any) -> None:
        # An unset value without a default is left out, so that reading it raises (`__getattr__`).
        for name in [name for name, value in self.__dict__.items() if value is _UNSET]:
            del self.__dict__[name]

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            if name in type(self).model_fields:
                raise SettingNotSetError(type(self).variable(name))
            return super().__getattr__(name)

    @property
    def role_boundaries(self) -> RoleBoundaries:
        return RoleBoundaries(
            workload=self.workload_role_boundary_arn,
            autoscaling=self.autoscaling_role_boundary_arn,
            service=self.service_role_boundary_arn,
        )

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Settings:
        """The settings `environ` sets; a value set but invalid raises pydantic's `ValidationError`, naming it."""
        return cls.model_validate(dict(environ))

    @classmethod
    def variable(cls, field: str) -> str:
        """The environment variable of a field (`operations_table` → `IS_OPERATIONS_TABLE`)."""
        alias = cls.model_fields[field].alias
        assert alias is not None
        return alias

    @classmethod
    def environment(cls, **values: object) -> dict[str, str]:
        """A function's environment setting these fields, as the variables carry them: text as is (CloudFormation
        tokens included), numbers in decimal, mappings as JSON."""
        return {cls.variable(field): _text(value) for field, value in values.items()}


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return json.dumps(dict(value), separators=(",", ":"))
    if isinstance(value, int | float):
        return str(value)
    raise TypeError(f"A setting is text, a number or a mapping, not {type(value).__name__}")


@cache
def settings() -> Settings:
    """This process's settings, read from its environment on first use."""
    return Settings.from_environment(os.environ)
