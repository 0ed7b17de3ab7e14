"""The InstantStart control plane's root stack: DynamoDB tables, the REST API behind Cognito and IAM
authorization, the live logs' WebSocket API (`infra.websocket`), the remote MCP server, the identities shared by
API and steps; the workflow steps' functions and the workflows themselves in nested stacks (`infra.step_lambdas`,
`infra.state_machines`), so that each template keeps headroom under CloudFormation's limits.

Everything the stack wires comes from the runtime's own catalogs: tables from
`controlplane.adapters.aws.tables.TABLES`, workflows from `statemachines/*.asl.json` through
`controlplane.workflows`, the functions' roles from `infra.access` (the step groups' collected from the steps'
declarations).

Context keys (all optional):
  deploymentName           3-12 lowercase letters and digits (default instantstart): starts the names of the state
                           machines, their log groups, the roles the stack and the steps create, and marks what
                           this deployment owns, so that two deployments fit one account and Region
  iamRoleBindings          {"arn:aws:iam::123456789012:role/Name": "viewer|operator|admin"}
                           IAM roles allowed to call the SigV4 routes (`/iam/...`, `/mcp-iam`), and their role
  cognitoDomainPrefix, consoleLocalDev, consoleDomainName, consoleCertificateArn, consoleWebAclArn
                           the web console and its sign-in (`infra.console`)
  mcpCallbackUrls          OAuth redirect URLs of the MCP app client (the MCP clients' local callbacks)
  mcpMaxRole               viewer|operator|admin (default admin): the strongest role the remote MCP server
                           acts with; each request still has at most the role of the user it acts for
  webAclArn                a regional WAFv2 web ACL to associate with the API stage
  alarmTopicArn            the SNS topic the alarms notify (`infra.monitoring`; without it, alarms notify no one)
  apiGatewayAccountRole    true: set the Region's API Gateway CloudWatch Logs role (a Region-wide account setting,
                           off by default: the stage's logging needs one, most accounts already have it; the
                           role and the setting are retained when the stack is deleted)
  skipLayerBundling        true: no pip for the layers, no bytecode for the code assets (tests; never deploy)
  runtimePython            the CPython 3.12 that compiles the bytecode (default: python3.12 on PATH)
"""

from __future__ import annotations

import json
import re
from typing import Any

from aws_cdk import Acknowledgment, Aws, CfnOutput, Duration, RemovalPolicy, Stack, Validations
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from controlplane.access.grant import Grant
from controlplane.adapters.aws.tables import TABLES, TableSpec
from controlplane.core.auth import Role
from controlplane.core.naming import state_machine_name
from controlplane.models.operations import OperationKind
from controlplane.settings import Settings
from infra.access.api import API_ACCESS
from infra.access.kubernetes import KUBERNETES_ROLE_GRANTS
from infra.access.mcp import MCP_ACCESS
from infra.console import Console
from infra.drift import DriftReconcile
from infra.events import HyperPodEvents, event_forwarding_role
from infra.grants import add_grants, add_table_grants
from infra.lambdas import LOG_RETENTION, control_plane_code, lambda_function, lambda_role, mcp_server_code
from infra.layer import MCP_LAYER_SOURCE, dependencies_layer
from infra.monitoring import Monitoring
from infra.nag import Acknowledgements
from infra.names import (
    deployment_name,
    event_forwarding_role_arn,
    kubernetes_jobs_role_arn,
    kubernetes_jobs_role_name,
    kubernetes_role_arn,
    kubernetes_role_name,
    kubernetes_view_role_arn,
    kubernetes_view_role_name,
    pascal,
)
from infra.state_machines import WORKFLOW_FAMILIES, WorkflowFamilyStack
from infra.step_lambdas import StepLambdasStack
from infra.websocket import LiveLogsWebSocket

API_HANDLER = "api.handler.lambda_handler"
MCP_HANDLER = "mcp_server.lambda_handler.lambda_handler"
MCP_PATH = "mcp"  # OAuth bearer (Cognito access token of the MCP app client), verified by the function
MCP_IAM_PATH = "mcp-iam"  # SigV4 (AWS_IAM), e.g. through mcp-proxy-for-aws
MCP_METADATA_PATH = (".well-known", "oauth-protected-resource", MCP_PATH)  # RFC 9728, public
DEFAULT_MCP_MAX_ROLE = "admin"
API_STAGE = "v1"
IAM_PATH = "iam"  # SigV4 callers use /iam/...; the handler strips the prefix
API_TIMEOUT = Duration.seconds(29)
DEFAULT_MCP_CALLBACK_URLS = ["http://localhost:8080/callback"]
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
# What the service boundary denies: every way to create or widen an identity or a policy.
IDENTITY_CHANGES = (
    "iam:AddUserToGroup",
    "iam:AttachGroupPolicy",
    "iam:AttachRolePolicy",
    "iam:AttachUserPolicy",
    "iam:CreateAccessKey",
    "iam:CreateLoginProfile",
    "iam:CreateOpenIDConnectProvider",
    "iam:CreatePolicy",
    "iam:CreatePolicyVersion",
    "iam:CreateRole",
    "iam:CreateSAMLProvider",
    "iam:CreateUser",
    "iam:DeleteRolePermissionsBoundary",
    "iam:DeleteUserPermissionsBoundary",
    "iam:PutGroupPolicy",
    "iam:PutRolePermissionsBoundary",
    "iam:PutRolePolicy",
    "iam:PutUserPermissionsBoundary",
    "iam:PutUserPolicy",
    "iam:SetDefaultPolicyVersion",
    "iam:UpdateAssumeRolePolicy",
    "iam:UpdateLoginProfile",
)
# What the training jobs' role may do at most: the SageMaker managed MLflow tracking API.
MLFLOW_ACTIONS = "sagemaker-mlflow:*"
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


class InstantStartStack(Stack):
    def __init__(self, scope: Construct, construct_id: str, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.acks = Acknowledgements()
        self.deployment_name = deployment_name(self)
        self.tables = {spec.setting: self._table(spec) for spec in TABLES}
        self.layer = dependencies_layer(self, "DependenciesLayer")
        self.workload_boundary = self._workload_boundary()
        self.autoscaling_boundary = self._autoscaling_boundary()
        self.service_boundary = self._service_boundary()
        self.event_forwarding_role = event_forwarding_role(self, self.acks)
        self.step_lambdas = StepLambdasStack(
            self,
            "StepLambdas",
            tables=self.tables,
            layer=self.layer,
            grant_values={
                "kubernetes_role_arn": kubernetes_role_arn(self.deployment_name),
                "kubernetes_view_role_arn": kubernetes_view_role_arn(self.deployment_name),
                "kubernetes_jobs_role_arn": kubernetes_jobs_role_arn(self.deployment_name),
                "workload_boundary_arn": self.workload_boundary.managed_policy_arn,
                "autoscaling_boundary_arn": self.autoscaling_boundary.managed_policy_arn,
                "service_boundary_arn": self.service_boundary.managed_policy_arn,
                "event_forwarding_role_arn": event_forwarding_role_arn(self.deployment_name),
                "state_machine_name": [state_machine_name(self.deployment_name, kind) for kind in OperationKind],
            },
            acks=self.acks,
        )
        machines = {}
        for family in WORKFLOW_FAMILIES:
            workflows = WorkflowFamilyStack(
                self,
                f"{pascal(family)}Workflows",
                family=family,
                function_for=self.step_lambdas.function_for,
                acks=self.acks,
            )
            machines.update(workflows.state_machines)
        self.state_machines = {kind: machines[kind] for kind in OperationKind}

        # The API's role before the Kubernetes view and jobs roles, which trust it; the MCP server's before the API
        # function, which recognises it (its `mcp_role_arn` setting) as the one delegating caller.
        self.api_role = lambda_role(self, "ApiRole", "REST API")
        self.kubernetes_role = self._kubernetes_role()
        self.kubernetes_view_role = self._kubernetes_view_role()
        self.kubernetes_jobs_role = self._kubernetes_jobs_role()
        self.mcp_role = lambda_role(self, "McpRole", "remote MCP server")
        self.api_function = self._api_function()
        self.drift = DriftReconcile(
            self,
            "DriftReconcile",
            tables=self.tables,
            layer=self.layer,
            kubernetes_view_role=self.kubernetes_view_role,
            acks=self.acks,
        )
        self.events = HyperPodEvents(
            self,
            "HyperPodEvents",
            tables=self.tables,
            layer=self.layer,
            state_machines=self.state_machines,
            kubernetes_view_role_arn=self.kubernetes_view_role.role_arn,
            acks=self.acks,
        )
        self.user_pool = self._user_pool()
        self.mcp_client = self._mcp_client()
        self.api = self._rest_api()
        self.live_logs = LiveLogsWebSocket(
            self,
            "LiveLogs",
            tables=self.tables,
            layer=self.layer,
            user_pool=self.user_pool,
            kubernetes_view_role=self.kubernetes_view_role,
            acks=self.acks,
        )
        self.console = Console(
            self, "Console", user_pool=self.user_pool, api=self.api, ws_url=self.live_logs.url, acks=self.acks
        )
        self.live_logs.accept_tokens_of(self.console.client)
        self.mcp_function = self._mcp_function()
        self._mcp_routes()
        self.monitoring = Monitoring(self, "Monitoring", api_function=self.api_function)
        self._outputs()
        self.acks.apply()

    # --- data ------------------------------------------------------------------------------------

    def _table(self, spec: TableSpec) -> dynamodb.Table:
        def attribute(name: str) -> dynamodb.Attribute:
            return dynamodb.Attribute(name=name, type=dynamodb.AttributeType.STRING)

        table = dynamodb.Table(
            self,
            f"{spec.logical_name}Table",
            partition_key=attribute(spec.partition_key),
            sort_key=attribute(spec.sort_key) if spec.sort_key else None,
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            time_to_live_attribute=spec.ttl_attribute,
            deletion_protection=True,
            removal_policy=RemovalPolicy.RETAIN,
        )
        for index in spec.indexes:
            table.add_global_secondary_index(
                index_name=index.name,
                partition_key=attribute(index.partition_key),
                sort_key=attribute(index.sort_key) if index.sort_key else None,
                projection_type=dynamodb.ProjectionType.ALL,
            )
        return table

    # --- identities ------------------------------------------------------------------------------

    def _workload_boundary(self) -> iam.ManagedPolicy:
        """The ceiling of every role the control plane creates for workloads with its own policies (the S3 CSI
        driver's and tiered checkpointing's IRSA roles, the training jobs' pod identity role): whatever policy a step
        writes, the role can never do more than this."""
        mlflow_servers = f"arn:{Aws.PARTITION}:sagemaker:*:{Aws.ACCOUNT_ID}:mlflow-tracking-server/*"
        boundary = iam.ManagedPolicy(
            self,
            "WorkloadRoleBoundary",
            description="InstantStart: permissions boundary of the roles created for cluster workloads",
            statements=[
                iam.PolicyStatement(
                    actions=[
                        "s3:ListBucket",
                        "s3:GetObject",
                        "s3:PutObject",
                        "s3:DeleteObject",
                        "s3:AbortMultipartUpload",
                    ],
                    resources=["*"],
                    conditions={"StringEquals": {"s3:ResourceAccount": Aws.ACCOUNT_ID}},
                ),
                iam.PolicyStatement(
                    actions=[
                        "cloudwatch:PutMetricData",
                        "logs:CreateLogGroup",
                        "logs:CreateLogStream",
                        "logs:PutLogEvents",
                    ],
                    resources=["*"],
                ),
                iam.PolicyStatement(actions=[MLFLOW_ACTIONS], resources=[mlflow_servers]),
            ],
        )
        mlflow_reason = (
            "A permissions boundary is a ceiling, not a grant: the training jobs' role (trainingOperator feature) "
            "logs runs, metrics and artifacts to SageMaker managed MLflow, whose API is the sagemaker-mlflow service "
            "alone; the ceiling admits it only on this account's tracking servers, and the role's own policy names "
            "its cluster's Region"
        )
        self.acks.add(boundary, f"AwsSolutions-IAM5[Action::{MLFLOW_ACTIONS}]", mlflow_reason)
        self.acks.wildcard_resources(boundary, [MLFLOW_ACTIONS], [mlflow_servers], mlflow_reason)
        self.acks.add(
            boundary,
            "AwsSolutions-IAM5[Resource::*]",
            "A permissions boundary is a ceiling, not a grant: each workload role's own inline policy names "
            "its buckets, and the boundary keeps any such policy to S3 object access on this account's buckets "
            "(s3:ResourceAccount), metrics and logs",
        )
        return boundary

    def _service_boundary(self) -> iam.ManagedPolicy:
        """The ceiling of the roles AWS services and operators assume with AWS managed policies attached (the EKS
        cluster role, the HyperPod execution role, the training, FSx CSI, observability and inference operators'
        roles): whatever those policies grant, the role can never change IAM identities or policies (service-linked
        roles aside), and never touch a bucket of another account."""
        service_linked = f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/aws-service-role/*"
        boundary = iam.ManagedPolicy(
            self,
            "ServiceRoleBoundary",
            description="InstantStart: permissions boundary of service and operator roles created for clusters",
            statements=[
                iam.PolicyStatement(sid="AwsManagedPoliciesCeiling", actions=["*"], resources=["*"]),
                iam.PolicyStatement(
                    sid="NoIdentityChanges",
                    effect=iam.Effect.DENY,
                    actions=list(IDENTITY_CHANGES),
                    not_resources=[service_linked],
                ),
                iam.PolicyStatement(
                    sid="NoBucketsOfOtherAccounts",
                    effect=iam.Effect.DENY,
                    actions=["s3:*"],
                    resources=["*"],
                    conditions={"StringNotEquals": {"s3:ResourceAccount": Aws.ACCOUNT_ID}},
                ),
            ],
        )
        reason = (
            "A permissions boundary is a ceiling, not a grant: these roles hold only the AWS managed policies the "
            "steps may attach (iam:PolicyARN condition); the boundary's denials are what it adds: no IAM identity "
            "or policy changes and no S3 access outside this account"
        )
        self.acks.add(boundary, "AwsSolutions-IAM5[Action::*]", reason)
        self.acks.add(boundary, "AwsSolutions-IAM5[Resource::*]", reason)
        return boundary

    def _autoscaling_boundary(self) -> iam.ManagedPolicy:
        """The ceiling of the ClusterRole the karpenter feature creates for HyperPod autoscaling: whatever policy
        the step writes, HyperPod can do no more with the role than add and delete nodes of HyperPod clusters."""
        actions = ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"]
        clusters = [f"arn:{Aws.PARTITION}:sagemaker:*:{Aws.ACCOUNT_ID}:cluster/*"]
        boundary = iam.ManagedPolicy(
            self,
            "AutoscalingRoleBoundary",
            description="InstantStart: permissions boundary of HyperPod autoscaling cluster roles",
            statements=[iam.PolicyStatement(actions=actions, resources=clusters)],
        )
        self.acks.wildcard_resources(
            boundary,
            actions,
            clusters,
            "A permissions boundary is a ceiling, not a grant: each autoscaling role's own inline policy names its "
            "one cluster, and the boundary keeps any such policy to node batch actions on this account's clusters",
        )
        return boundary

    def _kubernetes_role(self) -> iam.Role:
        """The identity that signs the steps' EKS bearer tokens; clusters make it cluster admin through access
        entries. Trusted by the step groups that assume it, never by the API; named, so that the steps' nested stack
        names it without a reference (the trust policy already references their roles)."""
        role = iam.Role(
            self,
            "KubernetesAccessRole",
            role_name=kubernetes_role_name(self.deployment_name),
            assumed_by=iam.CompositePrincipal(*self.step_lambdas.kubernetes_roles()),
            description="InstantStart: EKS access-entry principal (cluster admin), assumed by Kubernetes-calling steps",
            max_session_duration=Duration.hours(1),
        )
        add_grants(role, KUBERNETES_ROLE_GRANTS, {}, self.acks)
        return role

    def _kubernetes_view_role(self) -> iam.Role:
        """The identity that signs the internet-facing API's EKS bearer tokens; every cluster's access entry for it
        holds AmazonEKSViewPolicy only, so the API reads nodes and pods and can write nothing. Trusted by the API."""
        role = iam.Role(
            self,
            "KubernetesViewRole",
            role_name=kubernetes_view_role_name(self.deployment_name),
            assumed_by=self.api_role,
            description="InstantStart: EKS access-entry principal (view only), assumed by the REST API",
            max_session_duration=Duration.hours(1),
        )
        add_grants(role, KUBERNETES_ROLE_GRANTS, {}, self.acks)
        return role

    def _kubernetes_jobs_role(self) -> iam.Role:
        """The identity that signs the API's job writes; every cluster's access entry for it names only the job
        writers' group, whose RBAC allows creating, reading and deleting job objects. Trusted by the API."""
        role = iam.Role(
            self,
            "KubernetesJobsRole",
            role_name=kubernetes_jobs_role_name(self.deployment_name),
            assumed_by=self.api_role,
            description="InstantStart: EKS access-entry principal (job objects only, by RBAC), assumed by the REST API",
            max_session_duration=Duration.hours(1),
        )
        add_grants(role, KUBERNETES_ROLE_GRANTS, {}, self.acks)
        return role

    # --- functions -------------------------------------------------------------------------------

    def _api_function(self) -> lambda_.Function:
        role = self.api_role
        add_grants(
            role,
            API_ACCESS.grants,
            {
                "state_machine_arn": [machine.state_machine_arn for machine in self.state_machines.values()],
                "state_machine_name": [state_machine_name(self.deployment_name, kind) for kind in OperationKind],
                "kubernetes_view_role_arn": self.kubernetes_view_role.role_arn,
                "kubernetes_jobs_role_arn": self.kubernetes_jobs_role.role_arn,
            },
            self.acks,
        )
        add_table_grants(role, API_ACCESS, self.tables)
        bindings = iam_role_bindings(self.node.try_get_context("iamRoleBindings"))
        return lambda_function(
            self,
            "Api",
            handler=API_HANDLER,
            role=role,
            timeout=API_TIMEOUT,
            description="InstantStart REST API",
            environment=Settings.environment(
                **{setting: table.table_name for setting, table in self.tables.items()},
                state_machine_arns=self.to_json_string(
                    {kind.value: machine.state_machine_arn for kind, machine in self.state_machines.items()}
                ),
                iam_role_bindings=bindings,
                kubernetes_view_role_arn=self.kubernetes_view_role.role_arn,
                kubernetes_jobs_role_arn=self.kubernetes_jobs_role.role_arn,
                mcp_role_arn=self.mcp_role.role_arn,
                mcp_max_role=self._mcp_max_role(),
                # The features' live state is read through their steps' services, which are built with the
                # boundaries of the roles they would create (the API creates none).
                workload_role_boundary_arn=self.workload_boundary.managed_policy_arn,
                autoscaling_role_boundary_arn=self.autoscaling_boundary.managed_policy_arn,
                service_role_boundary_arn=self.service_boundary.managed_policy_arn,
            ),
            code=control_plane_code(self),
            layer=self.layer,
            acks=self.acks,
        )

    def _mcp_max_role(self) -> str:
        role = str(self.node.try_get_context("mcpMaxRole") or DEFAULT_MCP_MAX_ROLE)
        if role not in BINDABLE_ROLES:
            raise ValueError(f"mcpMaxRole: {role!r} is not one of {sorted(BINDABLE_ROLES)}")
        return role

    def _mcp_function(self) -> lambda_.Function:
        """The remote MCP server: its own asset and layer, calling the API's SigV4 routes as itself."""
        add_grants(
            self.mcp_role, MCP_ACCESS.grants, {"rest_api_id": self.api.rest_api_id, "stage": API_STAGE}, self.acks
        )
        api_url = f"https://{self.api.rest_api_id}.execute-api.{Aws.REGION}.{Aws.URL_SUFFIX}/{API_STAGE}/{IAM_PATH}"
        return lambda_function(
            self,
            "Mcp",
            handler=MCP_HANDLER,
            role=self.mcp_role,
            timeout=API_TIMEOUT,
            description="InstantStart remote MCP server (streamable HTTP, stateless JSON)",
            environment=Settings.environment(
                api_url=api_url,
                cognito_issuer=self.user_pool.user_pool_provider_url,
                mcp_client_id=self.mcp_client.user_pool_client_id,
            ),
            code=mcp_server_code(self),
            layer=dependencies_layer(self, "McpDependenciesLayer", MCP_LAYER_SOURCE),
            acks=self.acks,
        )

    # --- API -------------------------------------------------------------------------------------

    def _user_pool(self) -> cognito.UserPool:
        pool = cognito.UserPool(
            self,
            "UserPool",
            self_sign_up_enabled=False,
            sign_in_aliases=cognito.SignInAliases(username=True, email=True),
            auto_verify=cognito.AutoVerifiedAttrs(email=True),
            password_policy=cognito.PasswordPolicy(
                min_length=14,
                require_lowercase=True,
                require_uppercase=True,
                require_digits=True,
                require_symbols=True,
                temp_password_validity=Duration.days(3),
            ),
            # People here can create and delete clusters: a second factor is not optional.
            # TOTP only, so that no SMS role or SNS spend is needed.
            mfa=cognito.Mfa.REQUIRED,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            # Plus: threat protection (compromised credentials, adaptive authentication) enforced.
            feature_plan=cognito.FeaturePlan.PLUS,
            standard_threat_protection_mode=cognito.StandardThreatProtectionMode.FULL_FUNCTION,
            deletion_protection=True,
            removal_policy=RemovalPolicy.RETAIN,
        )
        for role in sorted(Role, reverse=True):
            pool.add_group(
                f"{role.name.capitalize()}Group",
                group_name=role.name.lower(),
                description=f"InstantStart {role.name.lower()} role",
                precedence=len(Role) - role.value,
            )
        return pool

    def _mcp_client(self) -> cognito.UserPoolClient:
        """The remote MCP server's own app client: its access tokens are the only ones /mcp accepts
        (their client_id is the audience). Public (MCP clients run on people's machines), code + PKCE."""
        callbacks = list(self.node.try_get_context("mcpCallbackUrls") or DEFAULT_MCP_CALLBACK_URLS)
        return self.user_pool.add_client(
            "McpClient",
            generate_secret=False,
            auth_flows=cognito.AuthFlow(),
            o_auth=cognito.OAuthSettings(
                flows=cognito.OAuthFlows(authorization_code_grant=True),
                scopes=[cognito.OAuthScope.OPENID, cognito.OAuthScope.PROFILE],
                callback_urls=callbacks,
                logout_urls=callbacks,
            ),
            supported_identity_providers=[cognito.UserPoolClientIdentityProvider.COGNITO],
            prevent_user_existence_errors=True,
            access_token_validity=Duration.hours(1),
        )

    def _rest_api(self) -> apigw.RestApi:
        access_logs = logs.LogGroup(
            self, "ApiAccessLogs", retention=LOG_RETENTION, removal_policy=RemovalPolicy.DESTROY
        )
        api = apigw.RestApi(
            self,
            "Api",
            rest_api_name=self.deployment_name,
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
        validator = api.add_request_validator(
            "RequestValidator", validate_request_body=True, validate_request_parameters=True
        )
        integration = apigw.LambdaIntegration(self.api_function, proxy=True, allow_test_invoke=False)
        authorizer = apigw.CognitoUserPoolsAuthorizer(self, "Authorizer", cognito_user_pools=[self.user_pool])
        proxy_parameters = {"method.request.path.proxy": True}
        api.root.add_resource("{proxy+}").add_method(
            "ANY",
            integration,
            authorizer=authorizer,
            authorization_type=apigw.AuthorizationType.COGNITO,
            request_validator=validator,
            request_parameters=proxy_parameters,
        )
        iam_method = (
            api.root.add_resource(IAM_PATH)
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
        self._error_responses(api)
        self._api_gateway_logging_role(api)
        self._web_acl(api)
        return api

    def _mcp_routes(self) -> None:
        """/mcp (OAuth, verified by the function so that it can answer 401 with its RFC 9728 metadata),
        /mcp-iam (SigV4) and the public metadata document, all served by the MCP function."""
        integration = apigw.LambdaIntegration(self.mcp_function, proxy=True, allow_test_invoke=False)
        root = self.api.root
        bearer = root.add_resource(MCP_PATH).add_method(
            "ANY", integration, authorization_type=apigw.AuthorizationType.NONE
        )
        metadata_resource = root
        for part in MCP_METADATA_PATH:
            metadata_resource = metadata_resource.add_resource(part)
        metadata = metadata_resource.add_method("GET", integration, authorization_type=apigw.AuthorizationType.NONE)
        signed = root.add_resource(MCP_IAM_PATH).add_method(
            "ANY", integration, authorization_type=apigw.AuthorizationType.IAM
        )
        in_function = (
            "The MCP function authenticates every /mcp request itself: it verifies the Cognito access token's "
            "signature (the pool's JWKS), issuer, token_use, expiry and audience (the MCP app client only), and "
            "must answer a refusal with 401 and WWW-Authenticate naming its RFC 9728 metadata, which an API "
            "Gateway authorizer cannot; a Cognito authorizer would also accept other app clients' tokens"
        )
        public_metadata = (
            "RFC 9728 protected-resource metadata is public by definition: MCP clients read it before they hold "
            "a token, to find the authorization server; it is a static document naming no secret"
        )
        for method, reason in ((bearer, in_function), (metadata, public_metadata)):
            for finding in ("AwsSolutions-APIG4", "AwsSolutions-COG4"):
                Validations.of(method).acknowledge(Acknowledgment(id=finding, reason=reason))
        Validations.of(signed).acknowledge(
            Acknowledgment(
                id="AwsSolutions-COG4",
                reason="/mcp-iam serves MCP clients that sign with SigV4 (mcp-proxy-for-aws); AWS_IAM authorization "
                "replaces Cognito here by design, and the API maps the caller's role through iamRoleBindings",
            )
        )

    @staticmethod
    def _error_responses(api: apigw.RestApi) -> None:
        """Refusals made by API Gateway itself use the API's one error body too."""
        for response_type, status, code, message in GATEWAY_ERRORS:
            body = {"code": code, "message": message, "requestId": "$context.requestId"}
            api.add_gateway_response(
                f"{code}Response",
                type=response_type,
                status_code=status,
                templates={"application/json": json.dumps(body)},
            )

    def _api_gateway_logging_role(self, api: apigw.RestApi) -> None:
        """Execution logging needs the Region's API Gateway account to name a CloudWatch Logs role. That setting is
        the whole Region's, so the stack takes it over only when asked (`apiGatewayAccountRole=true`), and leaves it
        in place when deleted."""
        if str(self.node.try_get_context("apiGatewayAccountRole")).lower() != "true":
            return
        role = iam.Role(
            self,
            "ApiGatewayLoggingRole",
            assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
            description="API Gateway account role: writes execution and access logs of the Region's APIs",
        )
        # The account setting is Region-wide, so the role must serve every API's log groups.
        add_grants(
            role,
            (
                Grant(
                    ("logs:DescribeLogGroups",),
                    ("*",),
                    reason="logs:DescribeLogGroups has no resource-level permissions in the IAM Service "
                    "Authorization Reference",
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
            ),
            {},
            self.acks,
        )
        account = apigw.CfnAccount(self, "ApiGatewayAccount", cloud_watch_role_arn=role.role_arn)
        role.apply_removal_policy(RemovalPolicy.RETAIN)
        account.apply_removal_policy(RemovalPolicy.RETAIN)
        api.deployment_stage.node.add_dependency(account)

    def _web_acl(self, api: apigw.RestApi) -> None:
        web_acl_arn = self.node.try_get_context("webAclArn")
        if web_acl_arn:
            wafv2.CfnWebACLAssociation(
                self, "ApiWebAcl", resource_arn=api.deployment_stage.stage_arn, web_acl_arn=web_acl_arn
            )
            return
        Validations.of(api.deployment_stage).acknowledge(
            Acknowledgment(
                id="AwsSolutions-APIG3",
                reason="No WAF by default: every method requires Cognito or SigV4 authorization except /mcp and "
                "its RFC 9728 metadata route, which use NONE by design (the MCP function verifies /mcp's bearer "
                "token itself; the metadata is public); the stage is throttled; set the context key webAclArn to "
                "associate a regional WAFv2 web ACL",
            )
        )

    def _outputs(self) -> None:
        CfnOutput(self, "ApiUrl", value=self.api.url, description="REST API for Cognito users (ID token)")
        CfnOutput(self, "IamApiUrl", value=f"{self.api.url}{IAM_PATH}/", description="REST API for SigV4")
        CfnOutput(
            self, "WebSocketUrl", value=self.live_logs.url, description="Live logs (WebSocket, ?token=<ID token>)"
        )
        CfnOutput(self, "UserPoolId", value=self.user_pool.user_pool_id)
        CfnOutput(self, "UserPoolClientId", value=self.console.client.user_pool_client_id)
        CfnOutput(self, "McpUrl", value=f"{self.api.url}{MCP_PATH}", description="Remote MCP server (OAuth bearer)")
        CfnOutput(
            self,
            "McpIamUrl",
            value=f"{self.api.url}{MCP_IAM_PATH}",
            description="Remote MCP server (SigV4, execute-api)",
        )
        CfnOutput(self, "McpClientId", value=self.mcp_client.user_pool_client_id, description="MCP app client (OAuth)")
        CfnOutput(self, "UserPoolIssuer", value=self.user_pool.user_pool_provider_url)
        CfnOutput(self, "KubernetesAccessRoleArn", value=self.kubernetes_role.role_arn)
        CfnOutput(self, "KubernetesViewRoleArn", value=self.kubernetes_view_role.role_arn)
        for kind, machine in self.state_machines.items():
            CfnOutput(self, f"{pascal(kind.value)}StateMachineArn", value=machine.state_machine_arn)
