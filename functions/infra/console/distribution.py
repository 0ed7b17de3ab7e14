"""The console's CloudFront distribution: the site bucket (through origin access control) by default, the REST API's
stage under `/api/*` uncached (so that the Authorization header reaches it), logged to the log bucket; a custom
domain and its certificate when given, a web ACL when given, and the cdk-nag findings it answers by design."""

from __future__ import annotations

from aws_cdk import Aws
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.console.edge import API_PREFIX, INDEX_FILE, SPA_ROUTES, STRIP_API_PREFIX, security_headers, viewer_request
from infra.nag import Acknowledgements


def distribution(
    scope: Construct,
    *,
    bucket: s3.IBucket,
    logs: s3.IBucket,
    api: apigw.RestApi,
    cognito_origin: str,
    acks: Acknowledgements,
) -> cloudfront.Distribution:
    headers = security_headers(scope, cognito_origin)
    # The stage is the first segment of an execute-api path (/v1/clusters): the origin path adds it.
    api_origin = origins.HttpOrigin(
        f"{api.rest_api_id}.execute-api.{Aws.REGION}.{Aws.URL_SUFFIX}",
        origin_path=f"/{api.deployment_stage.stage_name}",
        protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        origin_ssl_protocols=[cloudfront.OriginSslPolicy.TLS_V1_2],
    )
    web_acl_arn = scope.node.try_get_context("consoleWebAclArn")
    certificate = _certificate(scope)
    created = cloudfront.Distribution(
        scope,
        "Distribution",
        comment="InstantStart web console and its /api",
        default_root_object=INDEX_FILE,
        default_behavior=cloudfront.BehaviorOptions(
            origin=origins.S3BucketOrigin.with_origin_access_control(bucket),
            viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
            cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
            response_headers_policy=headers,
            function_associations=viewer_request(
                scope, "SpaRoutes", SPA_ROUTES, "InstantStart console: the SPA's routes are index.html"
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
                function_associations=viewer_request(
                    scope, "ApiPrefix", STRIP_API_PREFIX, "InstantStart console: /api/<path> is the API's /<path>"
                ),
            )
        },
        http_version=cloudfront.HttpVersion.HTTP2_AND_3,
        price_class=cloudfront.PriceClass.PRICE_CLASS_100,
        enable_logging=True,
        log_bucket=logs,
        log_file_prefix="cloudfront/",
        web_acl_id=str(web_acl_arn) if web_acl_arn else None,
        domain_names=[str(scope.node.try_get_context("consoleDomainName"))] if certificate else None,
        certificate=certificate,
        minimum_protocol_version=cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 if certificate else None,
    )
    _acknowledge(created, acks, custom_domain=certificate is not None)
    return created


def domain_name(scope: Construct, distribution: cloudfront.Distribution) -> str:
    """The console's host: the custom domain when given, else the distribution's own."""
    return str(scope.node.try_get_context("consoleDomainName") or distribution.distribution_domain_name)


def _certificate(scope: Construct) -> acm.ICertificate | None:
    """The custom domain's certificate when one is given (TLS 1.2 at least); else CloudFront's own."""
    domain = scope.node.try_get_context("consoleDomainName")
    certificate_arn = scope.node.try_get_context("consoleCertificateArn")
    if bool(domain) != bool(certificate_arn):
        raise ValueError("consoleDomainName and consoleCertificateArn go together.")
    return acm.Certificate.from_certificate_arn(scope, "Certificate", str(certificate_arn)) if certificate_arn else None


def _acknowledge(distribution: cloudfront.Distribution, acks: Acknowledgements, *, custom_domain: bool) -> None:
    acks.add(
        distribution,
        "AwsSolutions-CFR1",
        "No geo restriction: the console serves the account's engineers wherever they work; the static files "
        "hold no data and every /api request needs a Cognito token",
    )
    if not distribution.node.try_get_context("consoleWebAclArn"):
        acks.add(
            distribution,
            "AwsSolutions-CFR2",
            "No WAF by default (a CloudFront web ACL lives in us-east-1 and costs per rule): the static files "
            "hold no data, /api is authenticated and throttled by API Gateway; set consoleWebAclArn to attach one",
        )
    if not custom_domain:
        acks.add(
            distribution,
            "AwsSolutions-CFR4",
            "The default *.cloudfront.net certificate cannot set a minimum TLS version (CloudFront applies "
            "TLSv1 to it); set consoleDomainName and consoleCertificateArn to serve the console with "
            "TLSv1.2_2021",
        )
