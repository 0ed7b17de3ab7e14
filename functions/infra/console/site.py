"""The `Console` construct: the console's hosting, sign-in and configuration, composed from this package's modules
(see `infra.console`), each building into this one construct."""

from __future__ import annotations

from aws_cdk import Aws, CfnOutput, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from constructs import Construct

from infra.console.content import deploy
from infra.console.distribution import distribution, domain_name
from infra.console.edge import API_PREFIX
from infra.console.hosting import log_bucket, site_bucket
from infra.console.sign_in import API_TOKEN, OAUTH_SCOPES, app_client, hosted_ui
from infra.nag import Acknowledgements


class Console(Construct):
    """The console's hosting, its app client (`client`) and its configuration (`config`, its `config.json`)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        user_pool: cognito.UserPool,
        api: apigw.RestApi,
        ws_url: str,
        acks: Acknowledgements,
    ) -> None:
        super().__init__(scope, construct_id)
        # Server access logs are delivered under a bucket policy, never a bucket ACL (CloudFront's log delivery
        # adds its own ACL grant, which a canned ACL in the template would take away on the next update).
        self.node.set_context("@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy", True)
        self.log_bucket = log_bucket(self, acks)
        self.bucket = site_bucket(self, self.log_bucket)
        self.hosted_ui = hosted_ui(self, user_pool)
        self.distribution = distribution(
            self,
            bucket=self.bucket,
            logs=self.log_bucket,
            api=api,
            cognito_origin=self.hosted_ui.base_url(),
            acks=acks,
        )
        self.url = f"https://{domain_name(self, self.distribution)}/"
        self.client = app_client(self, user_pool, self.url)
        # The console's `ConsoleConfig` (frontend/src/config.ts).
        self.config = {
            "apiBase": API_PREFIX,
            "wsBase": ws_url,
            "auth": {
                "mode": "cognito",
                "apiToken": API_TOKEN,
                "region": Aws.REGION,
                "userPoolId": user_pool.user_pool_id,
                "clientId": self.client.user_pool_client_id,
                "hostedUi": self.hosted_ui.base_url(),
                "redirectUri": self.url,
                "logoutUri": self.url,
                "scopes": [scope.scope_name for scope in OAUTH_SCOPES],
            },
        }
        deploy(self, self.bucket, self.config, acks)
        stack = Stack.of(self)
        CfnOutput(stack, "ConsoleUrl", value=self.url, description="Web console (Cognito hosted UI sign-in)")
        CfnOutput(stack, "CognitoDomain", value=self.hosted_ui.base_url(), description="Cognito hosted UI")
        CfnOutput(stack, "UserPoolClientId", value=self.client.user_pool_client_id)
