"""What CloudFront does to each request and response of the console: the viewer-request functions (CloudFront
Functions, JavaScript runtime 2.0) that route the SPA's paths and strip `/api`, and the security headers (HSTS, no
sniffing, no framing, a same-origin CSP that admits the Cognito hosted UI)."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudfront as cloudfront
from constructs import Construct

API_PREFIX = "/api"
INDEX_FILE = "index.html"
HSTS_MAX_AGE = Duration.days(730)

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


def viewer_request(
    scope: Construct, construct_id: str, code: str, comment: str
) -> list[cloudfront.FunctionAssociation]:
    function = cloudfront.Function(
        scope,
        construct_id,
        code=cloudfront.FunctionCode.from_inline(code),
        runtime=cloudfront.FunctionRuntime.JS_2_0,
        comment=comment,
    )
    return [cloudfront.FunctionAssociation(function=function, event_type=cloudfront.FunctionEventType.VIEWER_REQUEST)]


def security_headers(scope: Construct, cognito_origin: str) -> cloudfront.ResponseHeadersPolicy:
    """`cognito_origin`: the hosted UI's URL, which the console's sign-in reaches and posts to."""
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
        scope,
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
