"""The console's sign-in: the user pool's hosted UI (a Cognito domain) and the console's public app client
(authorization code with PKCE through the hosted UI, no secret), whose ID tokens the REST API's Cognito authorizer
and the WebSocket authorizer accept."""

from __future__ import annotations

from aws_cdk import Aws, Stack
from aws_cdk import aws_cognito as cognito
from constructs import Construct

LOCAL_DEV_URL = "http://localhost:5173/"
OAUTH_SCOPES = (cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE)
# API Gateway's Cognito authorizer (no authorization scopes on the method) validates ID tokens of the pool: the console
# sends the ID token its app client receives (openid scope) as the bearer.
API_TOKEN = "id"


def default_domain_prefix(stack: Stack) -> str:
    """A hosted-UI prefix unique per account and deployment (a Cognito domain prefix is unique per Region)."""
    return f"{stack.stack_name.lower()}-{Aws.ACCOUNT_ID}"


def hosted_ui(scope: Construct, user_pool: cognito.UserPool) -> cognito.UserPoolDomain:
    prefix = scope.node.try_get_context("cognitoDomainPrefix") or default_domain_prefix(Stack.of(scope))
    return user_pool.add_domain("Domain", cognito_domain=cognito.CognitoDomainOptions(domain_prefix=str(prefix)))


def app_client(scope: Construct, user_pool: cognito.UserPool, url: str) -> cognito.UserPoolClient:
    """The console's app client, signing in back to `url` (and Vite's dev server when asked)."""
    callbacks = [url]
    if str(scope.node.try_get_context("consoleLocalDev")).lower() == "true":
        callbacks.append(LOCAL_DEV_URL)
    return user_pool.add_client(
        "ConsoleClient",
        generate_secret=False,
        auth_flows=cognito.AuthFlow(user_srp=True),
        o_auth=cognito.OAuthSettings(
            flows=cognito.OAuthFlows(authorization_code_grant=True),
            scopes=list(OAUTH_SCOPES),
            callback_urls=callbacks,
            logout_urls=callbacks,
        ),
        supported_identity_providers=[cognito.UserPoolClientIdentityProvider.COGNITO],
        prevent_user_existence_errors=True,
    )
