"""The workflow steps' Lambda functions: a nested stack with one function, one role and one log group per step
group of `infra.step_groups.STEP_GROUPS`. Every function runs the one step handler, which dispatches on the Task
name; its role has the union of its steps' grants and nothing else."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import Duration, NestedStack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.grants import add_grants, add_table_grants
from infra.lambdas import control_plane_code, lambda_function, lambda_role
from infra.nag import Acknowledgements
from infra.names import pascal
from infra.permissions import ASSUME
from infra.step_groups import STEP_GROUPS, group_access, group_of

STEP_HANDLER = "steps.handler.lambda_handler"
STEP_TIMEOUT = Duration.seconds(60)
POLL_SECONDS = "5"
POLL_MAX_SECONDS = "7200"
# Grant placeholders whose value every step also reads from its environment (the services that create roles are
# built with their boundaries, whichever step of theirs runs).
ENVIRONMENT_OF_VALUE = {
    "kubernetes_view_role_arn": "IS_KUBERNETES_VIEW_ROLE_ARN",
    "kubernetes_jobs_role_arn": "IS_KUBERNETES_JOBS_ROLE_ARN",
    "workload_boundary_arn": "IS_WORKLOAD_ROLE_BOUNDARY_ARN",
    "autoscaling_boundary_arn": "IS_AUTOSCALING_ROLE_BOUNDARY_ARN",
    "service_boundary_arn": "IS_SERVICE_ROLE_BOUNDARY_ARN",
    "event_forwarding_role_arn": "IS_EVENT_FORWARDING_ROLE_ARN",
}


class StepLambdasStack(NestedStack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        tables: Mapping[str, dynamodb.ITable],
        layer: lambda_.ILayerVersion,
        grant_values: Mapping[str, Any],
        acks: Acknowledgements,
    ) -> None:
        """`grant_values` fills the permission table's placeholders (`kubernetes_role_arn`, the boundaries, ...)."""
        super().__init__(scope, construct_id, description="InstantStart workflow steps: one Lambda function per group")
        self._tables = tables
        self._layer = layer
        self._grant_values = grant_values
        self._acks = acks
        self._code = control_plane_code(self)
        self.roles = {group: lambda_role(self, f"{pascal(group)}StepsRole", f"{group} steps") for group in STEP_GROUPS}
        self.functions = {group: self._function(group) for group in STEP_GROUPS}

    def function_for(self, step: str) -> lambda_.Function:
        return self.functions[group_of(step)]

    def kubernetes_roles(self) -> list[iam.Role]:
        """The roles the Kubernetes access role trusts: those of groups with a step that assumes it."""
        return [self.roles[group] for group in STEP_GROUPS if group_access(group).kubernetes_role == ASSUME]

    def _function(self, group: str) -> lambda_.Function:
        access = group_access(group)
        role = self.roles[group]
        add_grants(role, access.grants, self._grant_values, self._acks)
        add_table_grants(role, access, self._tables)
        environment = {
            # settings() requires every table name, even of tables these steps never touch.
            **{env_var: table.table_name for env_var, table in self._tables.items()},
            "IS_POLL_SECONDS": POLL_SECONDS,
            "IS_POLL_MAX_SECONDS": POLL_MAX_SECONDS,
        }
        if access.kubernetes_role:
            environment["IS_KUBERNETES_ROLE_ARN"] = self._grant_values["kubernetes_role_arn"]
        for value, env_var in ENVIRONMENT_OF_VALUE.items():
            environment[env_var] = self._grant_values[value]
        return lambda_function(
            self,
            f"{pascal(group)}Steps",
            handler=STEP_HANDLER,
            role=role,
            timeout=STEP_TIMEOUT,
            description=f"InstantStart workflow steps: {group}",
            environment=environment,
            code=self._code,
            layer=self._layer,
            acks=self._acks,
        )
