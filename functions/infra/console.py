"""The web console in AWS: a private bucket behind CloudFront, which also routes `/api/*` to the REST API (one
origin for the browser, so no CORS), the console's `config.json`, and its sign-in through the Cognito hosted UI
(authorization code + PKCE, a public app client).

What the console is (pages, build) lives in `frontend/`; what the API is, in `infra.stack`. This module only hosts the
build output `frontend/dist` and tells it where things are. The Cognito domain created here is the pool's hosted UI,
which the remote MCP server's OAuth clients sign in through too.

Context keys (all optional):
  consoleDir               the console's build to deploy; default `frontend/dist` (`make console` builds it)
  cognitoDomainPrefix      prefix of the hosted UI (`<prefix>.auth.<region>.amazoncognito.com`); default
                           `<stack name>-<account>`, unique per account, deployment and Region
  consoleLocalDev          true: the console app client also accepts `http://localhost:5173/` (Vite's dev server)
  consoleDomainName        a custom domain for the console, with consoleCertificateArn (ACM, us-east-1); only
                           then can CloudFront refuse TLS below 1.2 (TLSv1.2_2021)
  consoleCertificateArn
  consoleWebAclArn         a WAFv2 web ACL of scope CLOUDFRONT (us-east-1) for the distribution
"""

from __future__ import annotations

from pathlib import Path

from aws_cdk import Aws, CfnOutput, DefaultStackSynthesizer, Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from controlplane.access.grant import Grant
from infra.grants import add_grants
from infra.lambdas import LOG_RETENTION, lambda_role
from infra.nag import Acknowledgements

# The console's build; the `consoleDir` context key points elsewhere.
DIST_DIR = Path(__file__).resolve().parents[2] / "frontend" / "dist"
API_PREFIX = "/api"
CONFIG_FILE = "config.json"
INDEX_FILE = "index.html"
LOCAL_DEV_URL = "http://localhost:5173/"
OAUTH_SCOPES = (cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE)
# API Gateway's Cognito authorizer (no authorization scopes on the method) validates ID tokens of the pool: the console
# sends the ID token its app client receives (openid scope) as the bearer.
API_TOKEN = "id"
LOG_DAYS = 90  # the log groups' retention (infra.lambdas.LOG_RETENTION)
HSTS_MAX_AGE = Duration.days(730)
# Built assets carry a content hash in their names: cached for a year. index.html and config.json name them:
# revalidated on every load, so a deployment is seen at once without a CloudFront invalidation.
IMMUTABLE = [s3deploy.CacheControl.set_public(), s3deploy.CacheControl.max_age(Duration.days(365))]
REVALIDATE = [s3deploy.CacheControl.no_cache()]

# What CDK's bucket deployment handler does: fetch its source zips from the CDK assets bucket, sync them into the
# console bucket (list, put, and delete what a new build no longer has). Both buckets are this account's.
_THIS_ACCOUNT = {"StringEquals": {"s3:ResourceAccount": "{account}"}}
DEPLOYMENT_GRANTS = (
    Grant(
        ("s3:GetObject",),
        ("arn:{partition}:s3:::{assets_bucket}/*",),
        _THIS_ACCOUNT,
        reason="The deployment reads the console's source zips, whose keys (content hashes) CDK chooses at synth, "
        "from the CDK assets bucket",
    ),
    Grant(("s3:ListBucket",), ("{console_bucket_arn}",), _THIS_ACCOUNT),
    Grant(
        ("s3:PutObject", "s3:DeleteObject"),
        ("{console_bucket_arn}/*",),
        _THIS_ACCOUNT,
        reason="The deployment writes the console's files (named by the build) and deletes those a new build no "
        "longer has, in the console bucket only",
    ),
)

# Viewer-request functions (CloudFront Functions, JavaScript runtime 2.0).
# /api/clusters → /clusters, which the origin path turns into the stage's /v1/clusters.
STRIP_API_PREFIX = f"""function handler(event) {{
  var request = event.request;
  request.uri = request.uri.substring({len(API_PREFIX)}) || "/";
  return request;
}}"""
# The SPA's own routes (/clusters/demo) are index.html; files (/assets/index-1a2b.js) are themselves. Only on the
# default behaviour: an error of the API stays the API's error.
SPA_ROUTES = f"""function handler(event) {{
  var request = event.request;
  var name = request.uri.split("/").pop();
  if (name.indexOf(".") === -1) {{
    request.uri = "/{INDEX_FILE}";
  }}
  return request;
}}"""


def default_domain_prefix(stack: Stack) -> str:
    """A hosted-UI prefix unique per account and deployment (a Cognito domain prefix is unique per Region)."""
    return f"{stack.stack_name.lower()}-{Aws.ACCOUNT_ID}"


class Console(Construct):
    """The console's hosting, its app client and its configuration."""

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
        self._acks = acks
        self.log_bucket = self._log_bucket()
        self.bucket = self._bucket()
        self.hosted_ui = user_pool.add_domain(
            "Domain",
            cognito_domain=cognito.CognitoDomainOptions(
                domain_prefix=str(
                    self.node.try_get_context("cognitoDomainPrefix") or default_domain_prefix(Stack.of(self))
                )
            ),
        )
        self.distribution = self._distribution(api)
        self.url = f"https://{self._domain_name()}/"
        self.client = self._client(user_pool)
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
        self._deploy()
        CfnOutput(Stack.of(self), "ConsoleUrl", value=self.url, description="Web console (Cognito hosted UI sign-in)")
        CfnOutput(Stack.of(self), "CognitoDomain", value=self.hosted_ui.base_url(), description="Cognito hosted UI")

    # --- storage ---------------------------------------------------------------------------------

    def _log_bucket(self) -> s3.Bucket:
        bucket = s3.Bucket(
            self,
            "LogBucket",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            # CloudFront's standard logs are written under an ACL grant to its log delivery account.
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
            lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(LOG_DAYS))],
            removal_policy=RemovalPolicy.RETAIN,
        )
        self._acks.add(
            bucket,
            "AwsSolutions-S1",
            "This bucket receives the console bucket's server access logs and the distribution's access logs; "
            "logging its own accesses into itself would log every log delivery",
        )
        return bucket

    def _bucket(self) -> s3.Bucket:
        return s3.Bucket(
            self,
            "Bucket",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            server_access_logs_bucket=self.log_bucket,
            server_access_logs_prefix="s3/",
            removal_policy=RemovalPolicy.RETAIN,
        )

    # --- CloudFront ------------------------------------------------------------------------------

    def _domain_name(self) -> str:
        return str(self.node.try_get_context("consoleDomainName") or self.distribution.distribution_domain_name)

    def _certificate(self) -> acm.ICertificate | None:
        """The custom domain's certificate when one is given (TLS 1.2 at least); else CloudFront's own."""
        domain_name = self.node.try_get_context("consoleDomainName")
        certificate_arn = self.node.try_get_context("consoleCertificateArn")
        if bool(domain_name) != bool(certificate_arn):
            raise ValueError("consoleDomainName and consoleCertificateArn go together.")
        return (
            acm.Certificate.from_certificate_arn(self, "Certificate", str(certificate_arn)) if certificate_arn else None
        )

    def _security_headers(self) -> cloudfront.ResponseHeadersPolicy:
        cognito_origin = self.hosted_ui.base_url()
        policy = "; ".join(
            (
                "default-src 'self'",
                "script-src 'self'",
                "style-src 'self'",
                "img-src 'self' data:",
                "font-src 'self' data:",
                f"connect-src 'self' {cognito_origin}",
                f"form-action 'self' {cognito_origin}",
                "frame-ancestors 'none'",
                "base-uri 'self'",
                "object-src 'none'",
            )
        )
        return cloudfront.ResponseHeadersPolicy(
            self,
            "SecurityHeaders",
            comment="InstantStart console: HSTS, no sniffing, no framing, same-origin CSP",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=HSTS_MAX_AGE, include_subdomains=True, override=True
                ),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption.DENY, override=True
                ),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override=True
                ),
                content_security_policy=cloudfront.ResponseHeadersContentSecurityPolicy(
                    content_security_policy=policy, override=True
                ),
            ),
        )

    def _viewer_request(self, construct_id: str, code: str, comment: str) -> list[cloudfront.FunctionAssociation]:
        function = cloudfront.Function(
            self,
            construct_id,
            code=cloudfront.FunctionCode.from_inline(code),
            runtime=cloudfront.FunctionRuntime.JS_2_0,
            comment=comment,
        )
        return [
            cloudfront.FunctionAssociation(function=function, event_type=cloudfront.FunctionEventType.VIEWER_REQUEST)
        ]

    def _distribution(self, api: apigw.RestApi) -> cloudfront.Distribution:
        headers = self._security_headers()
        # The stage is the first segment of an execute-api path (/v1/clusters): the origin path adds it.
        api_origin = origins.HttpOrigin(
            f"{api.rest_api_id}.execute-api.{Aws.REGION}.{Aws.URL_SUFFIX}",
            origin_path=f"/{api.deployment_stage.stage_name}",
            protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
            origin_ssl_protocols=[cloudfront.OriginSslPolicy.TLS_V1_2],
        )
        web_acl_arn = self.node.try_get_context("consoleWebAclArn")
        certificate = self._certificate()
        distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment="InstantStart web console and its /api",
            default_root_object=INDEX_FILE,
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.S3BucketOrigin.with_origin_access_control(self.bucket),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
                response_headers_policy=headers,
                function_associations=self._viewer_request(
                    "SpaRoutes", SPA_ROUTES, "InstantStart console: the SPA's routes are index.html"
                ),
            ),
            additional_behaviors={
                f"{API_PREFIX}/*": cloudfront.BehaviorOptions(
                    origin=api_origin,
                    viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
                    allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
                    # Caching disabled: the Authorization header then reaches the API through this policy.
                    cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
                    origin_request_policy=cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
                    response_headers_policy=headers,
                    function_associations=self._viewer_request(
                        "ApiPrefix", STRIP_API_PREFIX, "InstantStart console: /api/<path> is the API's /<path>"
                    ),
                )
            },
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            enable_logging=True,
            log_bucket=self.log_bucket,
            log_file_prefix="cloudfront/",
            web_acl_id=str(web_acl_arn) if web_acl_arn else None,
            domain_names=[str(self.node.try_get_context("consoleDomainName"))] if certificate else None,
            certificate=certificate,
            minimum_protocol_version=cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 if certificate else None,
        )
        self._acknowledge(distribution, custom_domain=certificate is not None)
        return distribution

    def _acknowledge(self, distribution: cloudfront.Distribution, *, custom_domain: bool) -> None:
        self._acks.add(
            distribution,
            "AwsSolutions-CFR1",
            "No geo restriction: the console serves the account's engineers wherever they work; the static files "
            "hold no data and every /api request needs a Cognito token",
        )
        if not self.node.try_get_context("consoleWebAclArn"):
            self._acks.add(
                distribution,
                "AwsSolutions-CFR2",
                "No WAF by default (a CloudFront web ACL lives in us-east-1 and costs per rule): the static files "
                "hold no data, /api is authenticated and throttled by API Gateway; set consoleWebAclArn to attach one",
            )
        if not custom_domain:
            self._acks.add(
                distribution,
                "AwsSolutions-CFR4",
                "The default *.cloudfront.net certificate cannot set a minimum TLS version (CloudFront applies "
                "TLSv1 to it); set consoleDomainName and consoleCertificateArn to serve the console with "
                "TLSv1.2_2021",
            )

    # --- sign-in ---------------------------------------------------------------------------------

    def _client(self, user_pool: cognito.UserPool) -> cognito.UserPoolClient:
        """The console's public app client: authorization code with PKCE through the hosted UI, no secret."""
        callbacks = [self.url]
        if str(self.node.try_get_context("consoleLocalDev")).lower() == "true":
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

    # --- content ---------------------------------------------------------------------------------

    def _deploy(self) -> None:
        """frontend/dist when it was built, and config.json always (built from the stack's own values)."""
        role = lambda_role(self, "DeploymentRole", "console deployment")
        log_group = logs.LogGroup(self, "DeploymentLogs", retention=LOG_RETENTION, removal_policy=RemovalPolicy.DESTROY)
        log_group.grant_write(role)
        # What the handler does, granted here; CDK's own grants (s3:GetObject*, s3:List*, ...) are not taken.
        qualifier = Stack.of(self).synthesizer.bootstrap_qualifier or DefaultStackSynthesizer.DEFAULT_QUALIFIER
        assets_bucket = f"cdk-{qualifier}-assets-{Aws.ACCOUNT_ID}-{Aws.REGION}"
        add_grants(
            role,
            DEPLOYMENT_GRANTS,
            {"console_bucket_arn": self.bucket.bucket_arn, "assets_bucket": assets_bucket},
            self._acks,
        )
        deployer = role.without_policy_updates()
        dist = Path(self.node.try_get_context("consoleDir") or DIST_DIR)
        built = dist.joinpath(INDEX_FILE).is_file()
        config = s3deploy.Source.json_data(CONFIG_FILE, self.config)
        if built:
            s3deploy.BucketDeployment(
                self,
                "Assets",
                sources=[s3deploy.Source.asset(str(dist))],
                exclude=[INDEX_FILE, CONFIG_FILE],
                cache_control=IMMUTABLE,
                destination_bucket=self.bucket,
                role=deployer,
                log_group=log_group,
            )
        s3deploy.BucketDeployment(
            self,
            "Pages",
            sources=[s3deploy.Source.asset(str(dist)), config] if built else [config],
            exclude=["*"],
            include=[INDEX_FILE, CONFIG_FILE],
            prune=False,
            cache_control=REVALIDATE,
            destination_bucket=self.bucket,
            role=deployer,
            log_group=log_group,
        )
        if not built:
            CfnOutput(
                Stack.of(self),
                "ConsoleNotBuilt",
                value=f"{dist} was absent at synth: only {CONFIG_FILE} is deployed; build the console, then deploy",
            )
        self._acknowledge_deployment(role)

    def _acknowledge_deployment(self, role: iam.Role) -> None:
        """CDK's bucket deployment function is a singleton of the stack, on the runtime aws-cdk-lib chooses."""
        stack = Stack.of(self)
        role_arn = stack.resolve(role.role_arn)
        (function,) = [
            child
            for child in stack.node.children
            if isinstance(child, lambda_.Function) and stack.resolve(child.role.role_arn) == role_arn
        ]
        self._acks.add(
            function,
            "AwsSolutions-L1",
            "The runtime of CDK's bucket deployment handler is chosen by aws-cdk-lib (its bundled handler and AWS CLI "
            "layer are tested together); it moves with the library",
        )
