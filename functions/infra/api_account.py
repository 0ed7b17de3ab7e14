"""The Region's API Gateway account setting: the CloudWatch Logs role that execution logging needs. The setting is
the whole Region's, so the stack takes it over only when asked (context `apiGatewayAccountRole=true`; most accounts
already have one), and leaves the role and the setting in place when it is deleted."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_iam as iam
from constructs import Construct

from controlplane.access.grant import Grant
from infra.grants import add_grants
from infra.nag import Acknowledgements

CONTEXT_KEY = "apiGatewayAccountRole"
# The account setting is Region-wide, so the role must serve every API's log groups.
LOGGING_GRANTS = (
    Grant(
        ("logs:DescribeLogGroups",),
        ("*",),
        reason="logs:DescribeLogGroups has no resource-level permissions in the IAM Service Authorization Reference",
    ),
    Grant(
        (
            "logs:CreateLogGroup",
            "logs:CreateLogStream",
            "logs:DescribeLogStreams",
            "logs:PutLogEvents",
            "logs:GetLogEvents",
            "logs:FilterLogEvents",
        ),
        ("arn:{partition}:logs:{region}:{account}:log-group:*",),
        reason="The API Gateway account role is a Region-wide setting that writes the execution "
        "logs (API-Gateway-Execution-Logs_<api-id>/<stage>) of every REST API in the Region",
    ),
)


def api_gateway_account(scope: Construct, stage: apigw.Stage, acks: Acknowledgements) -> None:
    """The role and the account setting naming it, before `stage` (whose logging needs it), when asked."""
    if str(scope.node.try_get_context(CONTEXT_KEY)).lower() != "true":
        return
    role = iam.Role(
        scope,
        "ApiGatewayLoggingRole",
        assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
        description="API Gateway account role: writes execution and access logs of the Region's APIs",
    )
    add_grants(role, LOGGING_GRANTS, {}, acks)
    account = apigw.CfnAccount(scope, "ApiGatewayAccount", cloud_watch_role_arn=role.role_arn)
    role.apply_removal_policy(RemovalPolicy.RETAIN)
    account.apply_removal_policy(RemovalPolicy.RETAIN)
    stage.node.add_dependency(account)
