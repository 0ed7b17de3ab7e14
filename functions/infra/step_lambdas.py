"""The workflow steps' Lambda functions: a nested stack with one function, one role and one log group per step
group (`infra.access.steps`, collected from the steps' declarations). Every function runs the one step handler, which
dispatches on the Task name; its role has the union of its steps' grants and nothing else."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import Duration, NestedStack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from controlplane.core.naming import state_machine_name
from controlplane.models.operations import OperationKind
from controlplane.settings import Settings
from infra.access.steps import STEP_GROUPS, group_access, group_of
from infra.boundaries import Boundaries
from infra.grants import add_grants, add_table_grants
from infra.lambdas import control_plane_code, lambda_function, lambda_role
from infra.nag import Acknowledgements
from infra.names import (
    deployment_name,
    event_forwarding_role_arn,
    kubernetes_jobs_role_arn,
    kubernetes_role_arn,
    kubernetes_view_role_arn,
    pascal,
)
from infra.rendering import SETTING_OF_PLACEHOLDER

STEP_HANDLER = "steps.handler.lambda_handler"
STEP_TIMEOUT = Duration.seconds(60)
# The waits' bounds (`core.polling`) are the settings' own defaults, written there alone.
POLL_SETTINGS = {field: Settings.model_fields[field].default for field in ("poll_seconds", "poll_max_seconds")}


class StepLambdasStack(NestedStack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        tables: Mapping[str, dynamodb.ITable],
        layer: lambda_.ILayerVersion,
        boundaries: Boundaries,
        acks: Acknowledgements,
    ) -> None:
        super().__init__(scope, construct_id, description="InstantStart workflow steps: one Lambda function per group")
        self._tables = tables
        self._layer = layer
        self._grant_values = grant_values(deployment_name(self), boundaries)
        self._acks = acks
        self._code = control_plane_code(self)
        self.roles = {group: lambda_role(self, f"{pascal(group)}StepsRole", f"{group} steps") for group in STEP_GROUPS}
        self.functions = {group: self._function(group) for group in STEP_GROUPS}

    def function_for(self, step: str) -> lambda_.Function:
        return self.functions[group_of(step)]

    def kubernetes_roles(self) -> list[iam.Role]:
        """The roles the Kubernetes access role trusts: those of groups with a step that assumes it."""
        return [self.roles[group] for group in STEP_GROUPS if group_access(group).assumes_kubernetes_role]

    def _function(self, group: str) -> lambda_.Function:
        access = group_access(group)
        role = self.roles[group]
        add_grants(role, access.grants, self._grant_values, self._acks)
        add_table_grants(role, access, self._tables)
        settings: dict[str, Any] = {
            # The services the steps build name every table, even of tables these steps never touch, and are built
            # with the boundaries of the roles they create, whichever step of theirs runs.
            **{setting: table.table_name for setting, table in self._tables.items()},
            **{setting: self._grant_values[value] for value, setting in SETTING_OF_PLACEHOLDER.items()},
            **POLL_SETTINGS,
        }
        if not access.assumes_kubernetes_role:
            del settings["kubernetes_role_arn"]  # only the groups that reach the Kubernetes API may assume it
        return lambda_function(
            self,
            f"{pascal(group)}Steps",
            handler=STEP_HANDLER,
            role=role,
            timeout=STEP_TIMEOUT,
            description=f"InstantStart workflow steps: {group}",
            environment=Settings.environment(**settings),
            code=self._code,
            layer=self._layer,
            acks=self._acks,
        )


def grant_values(deployment: str, boundaries: Boundaries) -> dict[str, Any]:
    """What the steps' grants name of the stack: the roles by their fixed names (no reference, so that the
    Kubernetes access role can trust the steps' roles), the boundaries, the state machines by name."""
    return {
        "kubernetes_role_arn": kubernetes_role_arn(deployment),
        "kubernetes_view_role_arn": kubernetes_view_role_arn(deployment),
        "kubernetes_jobs_role_arn": kubernetes_jobs_role_arn(deployment),
        "workload_boundary_arn": boundaries.workload.managed_policy_arn,
        "autoscaling_boundary_arn": boundaries.autoscaling.managed_policy_arn,
        "service_boundary_arn": boundaries.service.managed_policy_arn,
        "event_forwarding_role_arn": event_forwarding_role_arn(deployment),
        "state_machine_name": [state_machine_name(deployment, kind) for kind in OperationKind],
    }
