"""The remote MCP server: its function (its own asset and layer, calling the REST API's SigV4 routes as its own role,
`infra.access.mcp.MCP_ACCESS`), its OAuth app client in the user pool, and its routes on the REST API: `/mcp` (OAuth
bearer, verified by the function so that it can answer 401 with its RFC 9728 metadata), `/mcp-iam` (SigV4, e.g.
through mcp-proxy-for-aws) and the public metadata document.

Context key (optional):
  mcpCallbackUrls   OAuth redirect URLs of the MCP app client (the MCP clients' local callbacks)
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, Aws, CfnOutput, Duration, Stack, Validations
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_iam as iam
from constructs import Construct

from controlplane.settings import Settings
from infra.access.mcp import MCP_ACCESS
from infra.grants import add_grants
from infra.lambdas import lambda_function, mcp_server_code
from infra.layer import MCP_LAYER_SOURCE, dependencies_layer
from infra.nag import Acknowledgements
from infra.parts import Part
from infra.rest_api import API_STAGE, API_TIMEOUT, IAM_PATH

MCP_HANDLER = "mcp_server.lambda_handler.lambda_handler"
MCP_PATH = "mcp"  # OAuth bearer (Cognito access token of the MCP app client), verified by the function
MCP_IAM_PATH = "mcp-iam"  # SigV4 (AWS_IAM), e.g. through mcp-proxy-for-aws
MCP_METADATA_PATH = (".well-known", "oauth-protected-resource", MCP_PATH)  # RFC 9728, public
DEFAULT_MCP_CALLBACK_URLS = ["http://localhost:8080/callback"]
IN_FUNCTION_AUTH = (
    "The MCP function authenticates every /mcp request itself: it verifies the Cognito access token's "
    "signature (the pool's JWKS), issuer, token_use, expiry and audience (the MCP app client only), and "
    "must answer a refusal with 401 and WWW-Authenticate naming its RFC 9728 metadata, which an API "
    "Gateway authorizer cannot; a Cognito authorizer would also accept other app clients' tokens"
)
PUBLIC_METADATA = (
    "RFC 9728 protected-resource metadata is public by definition: MCP clients read it before they hold "
    "a token, to find the authorization server; it is a static document naming no secret"
)
SIGNED = (
    "/mcp-iam serves MCP clients that sign with SigV4 (mcp-proxy-for-aws); AWS_IAM authorization "
    "replaces Cognito here by design, and the API maps the caller's role through iamRoleBindings"
)


class McpServer(Part):
    """`client`: the MCP app client; `function`: the server, acting as `role`."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        api: apigw.RestApi,
        user_pool: cognito.UserPool,
        role: iam.Role,
        acks: Acknowledgements,
    ) -> None:
        super().__init__(scope, construct_id)
        self.client = self._client(user_pool)
        add_grants(role, MCP_ACCESS.grants, {"rest_api_id": api.rest_api_id, "stage": API_STAGE}, acks)
        api_url = f"https://{api.rest_api_id}.execute-api.{Aws.REGION}.{Aws.URL_SUFFIX}/{API_STAGE}/{IAM_PATH}"
        self.function = lambda_function(
            self,
            "Mcp",
            handler=MCP_HANDLER,
            role=role,
            timeout=API_TIMEOUT,
            description="InstantStart remote MCP server (streamable HTTP, stateless JSON)",
            environment=Settings.environment(
                api_url=api_url,
                cognito_issuer=user_pool.user_pool_provider_url,
                mcp_client_id=self.client.user_pool_client_id,
            ),
            code=mcp_server_code(self),
            layer=dependencies_layer(self, "McpDependenciesLayer", MCP_LAYER_SOURCE),
            acks=acks,
        )
        self._routes(api)
        CfnOutput(
            Stack.of(self), "McpUrl", value=f"{api.url}{MCP_PATH}", description="Remote MCP server (OAuth bearer)"
        )
        CfnOutput(
            Stack.of(self),
            "McpIamUrl",
            value=f"{api.url}{MCP_IAM_PATH}",
            description="Remote MCP server (SigV4, execute-api)",
        )
        CfnOutput(
            Stack.of(self), "McpClientId", value=self.client.user_pool_client_id, description="MCP app client (OAuth)"
        )

    def _client(self, user_pool: cognito.UserPool) -> cognito.UserPoolClient:
        """The server's own app client: its access tokens are the only ones /mcp accepts (their client_id is the
        audience). Public (MCP clients run on people's machines), code + PKCE."""
        callbacks = list(self.node.try_get_context("mcpCallbackUrls") or DEFAULT_MCP_CALLBACK_URLS)
        return user_pool.add_client(
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

    def _routes(self, api: apigw.RestApi) -> None:
        integration = apigw.LambdaIntegration(self.function, proxy=True, allow_test_invoke=False)
        bearer = api.root.add_resource(MCP_PATH).add_method(
            "ANY", integration, authorization_type=apigw.AuthorizationType.NONE
        )
        metadata_resource = api.root
        for part in MCP_METADATA_PATH:
            metadata_resource = metadata_resource.add_resource(part)
        metadata = metadata_resource.add_method("GET", integration, authorization_type=apigw.AuthorizationType.NONE)
        signed = api.root.add_resource(MCP_IAM_PATH).add_method(
            "ANY", integration, authorization_type=apigw.AuthorizationType.IAM
        )
        for method, reason in ((bearer, IN_FUNCTION_AUTH), (metadata, PUBLIC_METADATA)):
            for finding in ("AwsSolutions-APIG4", "AwsSolutions-COG4"):
                Validations.of(method).acknowledge(Acknowledgment(id=finding, reason=reason))
        Validations.of(signed).acknowledge(Acknowledgment(id="AwsSolutions-COG4", reason=SIGNED))
