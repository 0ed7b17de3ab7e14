"""Live logs in AWS: the WebSocket API (API Gateway v2) in front of the `ws` functions, and what they may do.

- `$connect` is authorized by the `ws.authorizer` function (the console's Cognito ID token in the `token` query
  parameter, verified like the REST API's Cognito authorizer verifies it); the other routes (`$disconnect`,
  `subscribe`, `unsubscribe`, `$default`, selected by `$request.body.action`) belong to connections it let in.
- `ws.handler` serves every route and runs the log pushers (asynchronous invocations of itself, see
  `docs/live-logs.md`): it reads and writes the connections table, posts to connections
  (`execute-api:ManageConnections` on this API's `POST/@connections/*` only), reads jobs' pods and logs through the
  Kubernetes view role, and invokes itself.
- The stage logs every connection and message to its own log group and is throttled.

The connections table is one of `TABLES` (the stack creates it); the console's `config.json` gets `wsBase` from
`url`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from controlplane.access.grant import FunctionAccess, Grant
from controlplane.settings import Settings
from infra.grants import add_grants, add_table_grants
from infra.lambdas import LOG_RETENTION, control_plane_code, lambda_function, lambda_role
from infra.nag import Acknowledgements
from infra.names import deployment_name

HANDLER = "ws.handler.lambda_handler"
AUTHORIZER_HANDLER = "ws.authorizer.lambda_handler"
STAGE = "v1"
ROUTES = ("subscribe", "unsubscribe")
TOKEN_SOURCE = "route.request.querystring.token"
HANDLER_TIMEOUT = Duration.seconds(60)
AUTHORIZER_TIMEOUT = Duration.seconds(29)
# A pusher runs this long, then hands over to its successor: well inside HANDLER_TIMEOUT.
PUSHER_SECONDS = 40
THROTTLE_RATE, THROTTLE_BURST = 50, 100
ACCESS_LOG_FIELDS = {
    "requestId": "$context.requestId",
    "connectionId": "$context.connectionId",
    "routeKey": "$context.routeKey",
    "eventType": "$context.eventType",
    "status": "$context.status",
    "principal": "$context.authorizer.principalId",
    "ip": "$context.identity.sourceIp",
    "requestTime": "$context.requestTime",
    "error": "$context.error.message",
    "integrationError": "$context.integration.error",
}

WS_ACCESS = FunctionAccess(
    (
        # The followed job's cluster, and its pods and logs through the view role (AmazonEKSViewPolicy).
        Grant(
            ("eks:DescribeCluster",),
            ("arn:{partition}:eks:*:{account}:cluster/*",),
            reason="Imported clusters keep their own names, so reading a followed job's cluster names any cluster "
            "of the account; DescribeCluster changes nothing",
        ),
        Grant(("sts:AssumeRole",), ("{kubernetes_view_role_arn}",)),
        Grant(
            ("execute-api:ManageConnections",),
            ("arn:{partition}:execute-api:{region}:{account}:{api_id}/{stage}/POST/@connections/*",),
            reason="Posting to a connection names it by its id, which API Gateway chooses when it connects: "
            "any connection of this API's stage, posts only",
        ),
        Grant(("lambda:InvokeFunction",), ("arn:{partition}:lambda:{region}:{account}:function:{function_name}",)),
    ),
    # The connections, and the cluster registry of the jobs' service it reads logs through.
    tables=("connections_table", "clusters_table"),
)


def ws_function_name(scope: Construct) -> str:
    """The WebSocket function's fixed name: it invokes itself (a pusher's successor), so its grant names it."""
    return f"{deployment_name(scope)}-live-logs"


class LiveLogsWebSocket(Construct):
    """The WebSocket API, its stage and the `ws` functions; `url` is the clients' `wss://` address."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        tables: Mapping[str, dynamodb.ITable],
        layer: lambda_.ILayerVersion,
        user_pool: cognito.UserPool,
        kubernetes_view_role: iam.Role,
        acks: Acknowledgements,
    ) -> None:
        super().__init__(scope, construct_id)
        self._acks = acks
        self.authorizer_function = self._authorizer(layer, user_pool)
        self.api = apigwv2.WebSocketApi(
            self,
            "Api",
            api_name=f"{deployment_name(self)}-live-logs",
            description="InstantStart live logs: follow a training job's log",
            route_selection_expression="$request.body.action",
        )
        self.stage = self._stage()
        self.function = self._handler(tables, layer, kubernetes_view_role)
        self._routes()
        self.url = self.stage.url

    def accept_tokens_of(self, client: cognito.UserPoolClient) -> None:
        """The app client whose ID tokens may connect (the console's)."""
        self.authorizer_function.add_environment(Settings.variable("console_client_id"), client.user_pool_client_id)

    def _authorizer(self, layer: lambda_.ILayerVersion, user_pool: cognito.UserPool) -> lambda_.Function:
        return lambda_function(
            self,
            "Authorizer",
            handler=AUTHORIZER_HANDLER,
            role=lambda_role(self, "AuthorizerRole", "WebSocket authorizer"),
            timeout=AUTHORIZER_TIMEOUT,
            description="InstantStart live logs: verifies the console's ID token on $connect",
            environment=Settings.environment(cognito_issuer=user_pool.user_pool_provider_url),
            code=control_plane_code(self),
            layer=layer,
            acks=self._acks,
        )

    def _handler(
        self, tables: Mapping[str, dynamodb.ITable], layer: lambda_.ILayerVersion, view_role: iam.Role
    ) -> lambda_.Function:
        role = lambda_role(self, "Role", "WebSocket routes and log pushers")
        name = ws_function_name(self)
        values = {
            "kubernetes_view_role_arn": view_role.role_arn,
            "api_id": self.api.api_id,
            "stage": STAGE,
            "function_name": name,
        }
        add_grants(role, WS_ACCESS.grants, values, self._acks)
        add_table_grants(role, WS_ACCESS, tables)
        # Trusted by the view role, beside the API (the WS_ACCESS grant is the other half).
        assert view_role.assume_role_policy is not None
        view_role.assume_role_policy.add_statements(
            iam.PolicyStatement(actions=["sts:AssumeRole"], principals=[iam.ArnPrincipal(role.role_arn)])
        )
        function = lambda_function(
            self,
            "Handler",
            handler=HANDLER,
            role=role,
            timeout=HANDLER_TIMEOUT,
            description="InstantStart live logs: WebSocket routes and log pushers",
            environment=Settings.environment(
                **{setting: table.table_name for setting, table in tables.items()},
                kubernetes_view_role_arn=view_role.role_arn,
                ws_management_url=self.stage.callback_url,
                ws_pusher_seconds=PUSHER_SECONDS,
            ),
            code=control_plane_code(self),
            layer=layer,
            acks=self._acks,
        )
        cfn = function.node.default_child
        assert isinstance(cfn, lambda_.CfnFunction)
        cfn.function_name = name
        return function

    def _routes(self) -> None:
        integration = integrations.WebSocketLambdaIntegration("Handler", self.function)
        authorizer = authorizers.WebSocketLambdaAuthorizer(
            "Token", self.authorizer_function, identity_source=[TOKEN_SOURCE]
        )
        self.api.add_route("$connect", integration=integration, authorizer=authorizer)
        for route in ("$disconnect", "$default", *ROUTES):
            added = self.api.add_route(route, integration=integration)
            self._acks.add(
                added,
                "AwsSolutions-APIG4",
                "A WebSocket API authorizes on $connect only (API Gateway takes no authorizer on other routes); "
                "every message arrives on a connection the authorizer let in, and the handler checks the "
                "connection's role",
            )

    def _stage(self) -> apigwv2.WebSocketStage:
        log_group = logs.LogGroup(self, "AccessLogs", retention=LOG_RETENTION, removal_policy=RemovalPolicy.DESTROY)
        stage = apigwv2.WebSocketStage(
            self,
            "Stage",
            web_socket_api=self.api,
            stage_name=STAGE,
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(rate_limit=THROTTLE_RATE, burst_limit=THROTTLE_BURST),
        )
        cfn = stage.node.default_child
        assert isinstance(cfn, apigwv2.CfnStage)
        cfn.access_log_settings = apigwv2.CfnStage.AccessLogSettingsProperty(
            destination_arn=log_group.log_group_arn, format=json.dumps(ACCESS_LOG_FIELDS)
        )
        return stage
