"""The people who sign in: the Cognito user pool, with one group per role (`viewer`, `operator`, `admin`). Its app
clients are their faces' (the console's in `infra.console`, the remote MCP server's in `infra.mcp`); the REST API's
authorizer and the WebSocket authorizer verify its tokens."""

from __future__ import annotations

from aws_cdk import CfnOutput, Duration, RemovalPolicy, Stack
from aws_cdk import aws_cognito as cognito
from constructs import Construct

from controlplane.core.auth import Role
from infra.parts import Part


class Users(Part):
    """`pool`: the user pool."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        self.pool = cognito.UserPool(
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
            self.pool.add_group(
                f"{role.name.capitalize()}Group",
                group_name=role.name.lower(),
                description=f"InstantStart {role.name.lower()} role",
                precedence=len(Role) - role.value,
            )
        CfnOutput(Stack.of(self), "UserPoolId", value=self.pool.user_pool_id)
        CfnOutput(Stack.of(self), "UserPoolIssuer", value=self.pool.user_pool_provider_url)
