"""The REST API's function (`api.handler`): what its role may do (`infra.access.api.API_ACCESS`, its tables) and
its settings, among them which IAM roles may call the SigV4 routes and the most the remote MCP server may act as.

Context keys (optional):
  iamRoleBindings   {"arn:aws:iam::123456789012:role/Name": "viewer|operator|admin"}: the IAM roles allowed to call
                    the SigV4 routes (`/iam/...`, `/mcp-iam`), and their role; a mapping (cdk.json) or its JSON text
  mcpMaxRole        viewer|operator|admin (default admin): the strongest role the remote MCP server acts with; each
                    request still has at most the role of the user it acts for
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from controlplane.core.auth import Role
from controlplane.core.naming import state_machine_name
from controlplane.models.operations import OperationKind
from controlplane.settings import Settings
from infra.access.api import API_ACCESS
from infra.boundaries import Boundaries
from infra.grants import add_grants, add_table_grants
from infra.identities import Identities
from infra.lambdas import control_plane_code, lambda_function
from infra.nag import Acknowledgements
from infra.names import deployment_name
from infra.parts import Part
from infra.rest_api import API_TIMEOUT
from infra.state_machines import state_machine_arns

API_HANDLER = "api.handler.lambda_handler"
DEFAULT_MCP_MAX_ROLE = "admin"
BINDABLE_ROLES = frozenset(role.name.lower() for role in Role)


def iam_role_bindings(value: Any) -> dict[str, str]:
    """Context `iamRoleBindings`: a mapping (cdk.json) or its JSON text (`-c iamRoleBindings=...`)."""
    bindings = json.loads(value) if isinstance(value, str) else dict(value or {})
    for arn, role in bindings.items():
        if not re.fullmatch(r"arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+", arn):
            raise ValueError(f"iamRoleBindings: {arn!r} is not an IAM role ARN.")
        if role not in BINDABLE_ROLES:
            raise ValueError(f"iamRoleBindings: {arn} has role {role!r}, not one of {sorted(BINDABLE_ROLES)}")
    return dict(sorted(bindings.items()))


def mcp_max_role(scope: Construct) -> str:
    """Context `mcpMaxRole`."""
    role = str(scope.node.try_get_context("mcpMaxRole") or DEFAULT_MCP_MAX_ROLE)
    if role not in BINDABLE_ROLES:
        raise ValueError(f"mcpMaxRole: {role!r} is not one of {sorted(BINDABLE_ROLES)}")
    return role


class ApiFunction(Part):
    """`function`: the REST API's function, acting as `identities.api_role`."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        tables: Mapping[str, dynamodb.ITable],
        layer: lambda_.ILayerVersion,
        state_machines: Mapping[OperationKind, sfn.StateMachine],
        identities: Identities,
        boundaries: Boundaries,
        acks: Acknowledgements,
    ) -> None:
        super().__init__(scope, construct_id)
        role = identities.api_role
        add_grants(
            role,
            API_ACCESS.grants,
            {
                "state_machine_arn": [machine.state_machine_arn for machine in state_machines.values()],
                "state_machine_name": [state_machine_name(deployment_name(self), kind) for kind in OperationKind],
                "kubernetes_view_role_arn": identities.kubernetes_view_role.role_arn,
                "kubernetes_jobs_role_arn": identities.kubernetes_jobs_role.role_arn,
            },
            acks,
        )
        add_table_grants(role, API_ACCESS, tables)
        self.function = lambda_function(
            self,
            "Api",
            handler=API_HANDLER,
            role=role,
            timeout=API_TIMEOUT,
            description="InstantStart REST API",
            environment=Settings.environment(
                **{setting: table.table_name for setting, table in tables.items()},
                state_machine_arns=state_machine_arns(self, state_machines),
                iam_role_bindings=iam_role_bindings(self.node.try_get_context("iamRoleBindings")),
                kubernetes_view_role_arn=identities.kubernetes_view_role.role_arn,
                kubernetes_jobs_role_arn=identities.kubernetes_jobs_role.role_arn,
                mcp_role_arn=identities.mcp_role.role_arn,
                mcp_max_role=mcp_max_role(self),
                # The features' live state is read through their steps' services, which are built with the
                # boundaries of the roles they would create (the API creates none).
                workload_role_boundary_arn=boundaries.workload.managed_policy_arn,
                autoscaling_role_boundary_arn=boundaries.autoscaling.managed_policy_arn,
                service_role_boundary_arn=boundaries.service.managed_policy_arn,
            ),
            code=control_plane_code(self),
            layer=layer,
            acks=acks,
        )
