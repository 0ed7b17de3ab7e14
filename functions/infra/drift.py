"""The scheduled drift reconcile: an EventBridge Scheduler schedule invoking `events.reconcile` every six hours
(its role may invoke that function only), the function, and the function's role (`infra.access.drift.DRIFT_ACCESS`:
reads only, plus its three tables). The function signs its Kubernetes reads as the view role, which therefore
trusts it as well as the API."""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_scheduler as scheduler
from constructs import Construct

from controlplane.settings import Settings
from infra.access.drift import DRIFT_ACCESS
from infra.grants import add_grants, add_table_grants
from infra.lambdas import control_plane_code, lambda_function, lambda_role
from infra.nag import Acknowledgements

RECONCILE_HANDLER = "events.reconcile.lambda_handler"
RECONCILE_EVERY_HOURS = 6
# Each cluster's check is a handful of reads run together; 15 minutes leaves room for many clusters.
RECONCILE_TIMEOUT = Duration.minutes(15)


class DriftReconcile(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        tables: Mapping[str, dynamodb.ITable],
        layer: lambda_.ILayerVersion,
        kubernetes_view_role: iam.Role,
        acks: Acknowledgements,
    ) -> None:
        super().__init__(scope, construct_id)
        role = lambda_role(self, "Role", "scheduled drift reconcile")
        add_grants(role, DRIFT_ACCESS.grants, {"kubernetes_view_role_arn": kubernetes_view_role.role_arn}, acks)
        add_table_grants(role, DRIFT_ACCESS, tables)
        trust = kubernetes_view_role.assume_role_policy
        if trust is None:
            raise ValueError("The Kubernetes view role has no trust policy to extend.")
        trust.add_statements(
            iam.PolicyStatement(actions=["sts:AssumeRole"], principals=[iam.ArnPrincipal(role.role_arn)])
        )
        self.function = lambda_function(
            self,
            "Reconcile",
            handler=RECONCILE_HANDLER,
            role=role,
            timeout=RECONCILE_TIMEOUT,
            description="InstantStart scheduled drift reconcile of every registered cluster",
            environment=Settings.environment(
                **{table: tables[table].table_name for table in DRIFT_ACCESS.tables},
                kubernetes_view_role_arn=kubernetes_view_role.role_arn,
            ),
            code=control_plane_code(self),
            layer=layer,
            acks=acks,
        )
        # The schedule's own role may invoke this one function (its unqualified ARN) and nothing else.
        invoker = iam.Role(
            self,
            "ScheduleRole",
            assumed_by=iam.ServicePrincipal("scheduler.amazonaws.com"),
            description="InstantStart: invokes the scheduled drift reconcile",
        )
        invoker.add_to_policy(
            iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[self.function.function_arn])
        )
        self.schedule = scheduler.CfnSchedule(
            self,
            "Schedule",
            description="InstantStart: reconcile every registered cluster's recorded state with live state",
            schedule_expression=f"rate({RECONCILE_EVERY_HOURS} hours)",
            flexible_time_window=scheduler.CfnSchedule.FlexibleTimeWindowProperty(mode="OFF"),
            target=scheduler.CfnSchedule.TargetProperty(
                arn=self.function.function_arn,
                role_arn=invoker.role_arn,
                retry_policy=scheduler.CfnSchedule.RetryPolicyProperty(maximum_retry_attempts=0),
            ),
        )
