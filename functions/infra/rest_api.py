"""The REST API (API Gateway): the stage `v1`, logged (one JSON line per request) and throttled, in front of the API
function, its routes behind Cognito (`/{proxy+}`) and SigV4 (`/iam/{proxy+}`), and API Gateway's own refusals
in the API's one error body. The MCP server's routes are its own part's (`infra.mcp`).

Context keys (optional):
  webAclArn                a regional WAFv2 web ACL to associate with the stage
  apiGatewayAccountRole    true: set the Region's API Gateway CloudWatch Logs role (`infra.api_account`)
"""

from __future__ import annotations

import json

from aws_cdk import Acknowledgment, CfnOutput, Duration, RemovalPolicy, Stack, Validations
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from infra.api_account import api_gateway_account
from infra.lambdas import LOG_RETENTION
from infra.nag import Acknowledgements
from infra.names import deployment_name
from infra.parts import Part

API_STAGE = "v1"
IAM_PATH = "iam"  # SigV4 callers use /iam/...; the handler strips the prefix
API_TIMEOUT = Duration.seconds(29)  # API Gateway's integration timeout
# One JSON object per request: who called (Cognito user or IAM principal), what, and how it went.
ACCESS_LOG_FIELDS = {
    "requestId": "$context.requestId",
    "extendedRequestId": "$context.extendedRequestId",
    "requestTime": "$context.requestTime",
    "ip": "$context.identity.sourceIp",
    "userAgent": "$context.identity.userAgent",
    "cognitoSub": "$context.authorizer.claims.sub",
    "iamPrincipal": "$context.identity.userArn",
    "httpMethod": "$context.httpMethod",
    "resourcePath": "$context.resourcePath",
    "path": "$context.path",
    "protocol": "$context.protocol",
    "status": "$context.status",
    "responseLength": "$context.responseLength",
    "responseLatency": "$context.responseLatency",
    "integrationLatency": "$context.integration.latency",
    "integrationStatus": "$context.integration.status",
    "errorType": "$context.error.responseType",
    "xrayTraceId": "$context.xrayTraceId",
}
GATEWAY_ERRORS = (
    (
        apigw.ResponseType.UNAUTHORIZED,
        "401",
        "Unauthenticated",
        "Sign in (Cognito bearer token) or sign the request with SigV4 under /iam.",
    ),
    (apigw.ResponseType.ACCESS_DENIED, "403", "Forbidden", "The caller may not call this route."),
    (apigw.ResponseType.THROTTLED, "429", "Throttled", "Too many requests; retry with backoff."),
    (
        apigw.ResponseType.DEFAULT_4_XX,
        None,
        "InvalidRequest",
        "API Gateway refused the request: check the path, the method and the Authorization header.",
    ),
    (apigw.ResponseType.DEFAULT_5_XX, None, "ServiceError", "The service could not answer; retry later."),
)


class RestApi(Part):
    """`api`: the REST API, serving `function` on every route but the MCP server's."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        function: lambda_.IFunction,
        user_pool: cognito.IUserPool,
        acks: Acknowledgements,
    ) -> None:
        super().__init__(scope, construct_id)
        access_logs = logs.LogGroup(
            self, "ApiAccessLogs", retention=LOG_RETENTION, removal_policy=RemovalPolicy.DESTROY
        )
        self.api = apigw.RestApi(
            self,
            "Api",
            rest_api_name=deployment_name(self),
            description="InstantStart control plane REST API",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            cloud_watch_role=False,
            deploy_options=apigw.StageOptions(
                stage_name=API_STAGE,
                access_log_destination=apigw.LogGroupLogDestination(access_logs),
                access_log_format=apigw.AccessLogFormat.custom(json.dumps(ACCESS_LOG_FIELDS)),
                logging_level=apigw.MethodLoggingLevel.INFO,
                data_trace_enabled=False,  # bodies and headers carry tokens; never log them
                metrics_enabled=True,
                tracing_enabled=True,
                throttling_rate_limit=50,
                throttling_burst_limit=100,
            ),
        )
        self._routes(function, user_pool)
        for response_type, status, code, message in GATEWAY_ERRORS:
            body = {"code": code, "message": message, "requestId": "$context.requestId"}
            self.api.add_gateway_response(
                f"{code}Response",
                type=response_type,
                status_code=status,
                templates={"application/json": json.dumps(body)},
            )
        api_gateway_account(self, self.api.deployment_stage, acks)
        self._web_acl()
        CfnOutput(Stack.of(self), "ApiUrl", value=self.api.url, description="REST API for Cognito users (ID token)")
        CfnOutput(Stack.of(self), "IamApiUrl", value=f"{self.api.url}{IAM_PATH}/", description="REST API for SigV4")

    def _routes(self, function: lambda_.IFunction, user_pool: cognito.IUserPool) -> None:
        validator = self.api.add_request_validator(
            "RequestValidator", validate_request_body=True, validate_request_parameters=True
        )
        integration = apigw.LambdaIntegration(function, proxy=True, allow_test_invoke=False)
        authorizer = apigw.CognitoUserPoolsAuthorizer(self, "Authorizer", cognito_user_pools=[user_pool])
        proxy_parameters = {"method.request.path.proxy": True}
        self.api.root.add_resource("{proxy+}").add_method(
            "ANY",
            integration,
            authorizer=authorizer,
            authorization_type=apigw.AuthorizationType.COGNITO,
            request_validator=validator,
            request_parameters=proxy_parameters,
        )
        iam_method = (
            self.api.root.add_resource(IAM_PATH)
            .add_resource("{proxy+}")
            .add_method(
                "ANY",
                integration,
                authorization_type=apigw.AuthorizationType.IAM,
                request_validator=validator,
                request_parameters=proxy_parameters,
            )
        )
        Validations.of(iam_method).acknowledge(
            Acknowledgment(
                id="AwsSolutions-COG4",
                reason="The /iam/{proxy+} routes serve programs (MCP server, automation) that sign with "
                "SigV4; AWS_IAM authorization replaces Cognito here by design, and the handler maps the "
                "IAM role to a viewer/operator/admin binding",
            )
        )

    def _web_acl(self) -> None:
        web_acl_arn = self.node.try_get_context("webAclArn")
        if web_acl_arn:
            wafv2.CfnWebACLAssociation(
                self, "ApiWebAcl", resource_arn=self.api.deployment_stage.stage_arn, web_acl_arn=web_acl_arn
            )
            return
        Validations.of(self.api.deployment_stage).acknowledge(
            Acknowledgment(
                id="AwsSolutions-APIG3",
                reason="No WAF by default: every method requires Cognito or SigV4 authorization except /mcp and "
                "its RFC 9728 metadata route, which use NONE by design (the MCP function verifies /mcp's bearer "
                "token itself; the metadata is public); the stage is throttled; set the context key webAclArn to "
                "associate a regional WAFv2 web ACL",
            )
        )
