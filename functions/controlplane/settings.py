"""Process settings, read from the environment on first use (never at import).

Each value is read when first asked for, so a function is configured with only the variables it uses.
"""

from __future__ import annotations

import json
import os
from functools import cache, cached_property
from typing import Any

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME


def _env(name: str, default: str | None = None) -> str:
    value = os.environ.get(name, default)
    if value is None:
        raise RuntimeError(f"Environment variable {name} is not set.")
    return value


class Settings:
    @cached_property
    def deployment_name(self) -> str:
        """The deployment this function belongs to (CDK context `deploymentName`): it starts the names of the roles
        the steps create and marks what they own."""
        return _env("IS_DEPLOYMENT_NAME", DEFAULT_DEPLOYMENT_NAME)

    @cached_property
    def operations_table(self) -> str:
        return _env("IS_OPERATIONS_TABLE")

    @cached_property
    def clusters_table(self) -> str:
        return _env("IS_CLUSTERS_TABLE")

    @cached_property
    def audit_table(self) -> str:
        return _env("IS_AUDIT_TABLE")

    @cached_property
    def confirmations_table(self) -> str:
        return _env("IS_CONFIRMATIONS_TABLE")

    @cached_property
    def idempotency_table(self) -> str:
        return _env("IS_IDEMPOTENCY_TABLE")

    @cached_property
    def recipe_values_table(self) -> str:
        return _env("IS_RECIPE_VALUES_TABLE")

    @cached_property
    def events_table(self) -> str:
        return _env("IS_EVENTS_TABLE")

    @cached_property
    def event_waits_table(self) -> str:
        return _env("IS_EVENT_WAITS_TABLE")

    @cached_property
    def drift_table(self) -> str:
        return _env("IS_DRIFT_TABLE")

    @cached_property
    def connections_table(self) -> str:
        """The WebSocket API's connections and the log pushers' leases."""
        return _env("IS_CONNECTIONS_TABLE")

    @cached_property
    def ws_management_url(self) -> str:
        """The WebSocket API's management endpoint (`https://<api-id>.execute-api.<region>.amazonaws.com/<stage>`)."""
        return _env("IS_WS_MANAGEMENT_URL")

    @cached_property
    def ws_function_name(self) -> str:
        """The function a log pusher runs in (the WebSocket function itself, started asynchronously)."""
        return _env("IS_WS_FUNCTION_NAME", os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))

    @cached_property
    def cognito_issuer(self) -> str:
        """The user pool's issuer URL (`https://cognito-idp.<region>.amazonaws.com/<pool id>`)."""
        return _env("IS_COGNITO_ISSUER").rstrip("/")

    @cached_property
    def console_client_id(self) -> str:
        """The console's app client: the audience of the ID tokens the WebSocket authorizer accepts."""
        return _env("IS_CONSOLE_CLIENT_ID")

    @cached_property
    def ws_pusher_seconds(self) -> float:
        """How long one pusher invocation runs before it starts its successor (well under the function's timeout)."""
        return float(_env("IS_WS_PUSHER_SECONDS", "60"))

    @cached_property
    def ws_pusher_tick_seconds(self) -> float:
        """How often a pusher reads the followed log."""
        return float(_env("IS_WS_PUSHER_TICK_SECONDS", "1"))

    @cached_property
    def state_machine_arns(self) -> dict[str, str]:
        return _json("IS_STATE_MACHINE_ARNS")

    @cached_property
    def kubernetes_role_arn(self) -> str:
        """The role steps sign EKS bearer tokens as: cluster admin through its access entry."""
        return _env("IS_KUBERNETES_ROLE_ARN", "")

    @cached_property
    def kubernetes_view_role_arn(self) -> str:
        """The role the API signs EKS bearer tokens as: read-only (AmazonEKSViewPolicy) through its access entry."""
        return _env("IS_KUBERNETES_VIEW_ROLE_ARN", "")

    @cached_property
    def kubernetes_jobs_role_arn(self) -> str:
        """The role the API signs EKS bearer tokens as to create and delete jobs (RBAC: job objects only)."""
        return _env("IS_KUBERNETES_JOBS_ROLE_ARN", "")

    @cached_property
    def workload_role_boundary_arn(self) -> str:
        """The permissions boundary every IAM role created for cluster workloads must carry."""
        return _env("IS_WORKLOAD_ROLE_BOUNDARY_ARN")

    @cached_property
    def autoscaling_role_boundary_arn(self) -> str:
        """The permissions boundary of the ClusterRole created for HyperPod autoscaling (karpenter)."""
        return _env("IS_AUTOSCALING_ROLE_BOUNDARY_ARN")

    @cached_property
    def service_role_boundary_arn(self) -> str:
        """The permissions boundary of the roles AWS services assume: the EKS cluster role, the HyperPod execution
        role and the operators' roles (training, FSx CSI, observability, inference)."""
        return _env("IS_SERVICE_ROLE_BOUNDARY_ARN")

    @cached_property
    def event_forwarding_role_arn(self) -> str:
        """The role EventBridge assumes to put another Region's HyperPod events on this Region's default bus."""
        return _env("IS_EVENT_FORWARDING_ROLE_ARN")

    @cached_property
    def iam_role_bindings(self) -> dict[str, str]:
        return _json("IS_IAM_ROLE_BINDINGS")

    @cached_property
    def mcp_role_arn(self) -> str:
        """The remote MCP server's execution role: the one caller that may act on behalf of a user."""
        return _env("IS_MCP_ROLE_ARN", "")

    @cached_property
    def mcp_max_role(self) -> str:
        """The strongest role the MCP server may act with (a user's own role still bounds each request)."""
        return _env("IS_MCP_MAX_ROLE", "viewer")

    @cached_property
    def poll_seconds(self) -> int:
        """A wait loop's first wait; later waits grow with the time waited (core.polling)."""
        return int(_env("IS_POLL_SECONDS", "5"))

    @cached_property
    def poll_max_seconds(self) -> int:
        """The longest wait between two checks of a wait loop."""
        return int(_env("IS_POLL_MAX_SECONDS", "7200"))

    @cached_property
    def operation_wait_poll_seconds(self) -> float:
        """How often a long-polling `GET /operations/{id}/wait` re-reads the operation."""
        return float(_env("IS_OPERATION_WAIT_POLL_SECONDS", "0.5"))


def _json(name: str) -> Any:
    return json.loads(_env(name, "{}"))


@cache
def settings() -> Settings:
    return Settings()
