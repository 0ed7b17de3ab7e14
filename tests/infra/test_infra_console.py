"""The web console in AWS (`infra.console`): a private bucket behind CloudFront with OAC, `/api/*` routed to the API's
stage uncached, security headers, the console's public app client (code flow only) whose ID tokens the API's
authorizer accepts, the generated config.json and the outputs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cognito as cognito

from infra.console.edge import API_PREFIX, SPA_ROUTES, STRIP_API_PREFIX
from infra.console.sign_in import LOCAL_DEV_URL
from infra.console.site import Console
from infra.nag import Acknowledgements

ALL_METHODS = ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]


def one(resources: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    (item,) = resources.items()
    return item[0], item[1]["Properties"]


def distribution(synth: Any) -> dict[str, Any]:
    return one(synth.of_type("AWS::CloudFront::Distribution"))[1]["DistributionConfig"]


def console_bucket(synth: Any) -> str:
    """The bucket the distribution's default behaviour reads (the log bucket is the other one)."""
    config = distribution(synth)
    origin = next(o for o in config["Origins"] if o["Id"] == config["DefaultCacheBehavior"]["TargetOriginId"])
    return origin["DomainName"]["Fn::GetAtt"][0]


def console_client(synth: Any) -> dict[str, Any]:
    clients = synth.of_type("AWS::Cognito::UserPoolClient")
    (props,) = [c["Properties"] for key, c in clients.items() if key.startswith("UserPoolConsoleClient")]
    return props


def resolved(synth: Any, value: Any) -> Any:
    return cdk.Stack.of(synth.stack).resolve(value)


# --- hosting ---------------------------------------------------------------------------------------


def test_the_console_bucket_is_private_encrypted_tls_only_and_logged(synth: Any) -> None:
    bucket = console_bucket(synth)
    props = synth.resources[bucket]["Properties"]
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"] == [
        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
    ]
    assert props["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    assert "WebsiteConfiguration" not in props and "AccessControl" not in props
    log_bucket = props["LoggingConfiguration"]["DestinationBucketName"]["Ref"]
    assert synth.resources[log_bucket]["Properties"]["PublicAccessBlockConfiguration"]["RestrictPublicBuckets"]
    (policy,) = [
        p["Properties"]["PolicyDocument"]["Statement"]
        for p in synth.of_type("AWS::S3::BucketPolicy").values()
        if p["Properties"]["Bucket"] == {"Ref": bucket}
    ]
    deny = [s for s in policy if s["Effect"] == "Deny"]
    assert deny and deny[0]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    # Only CloudFront, and only for this distribution, may read it.
    (allow,) = [s for s in policy if s["Effect"] == "Allow"]
    assert allow["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert allow["Action"] == "s3:GetObject"
    (distribution_id,) = synth.of_type("AWS::CloudFront::Distribution")
    assert distribution_id in json.dumps(allow["Condition"]["StringEquals"]["AWS:SourceArn"])


def test_cloudfront_reads_the_bucket_through_origin_access_control(synth: Any) -> None:
    config = distribution(synth)
    origin = next(o for o in config["Origins"] if o["Id"] == config["DefaultCacheBehavior"]["TargetOriginId"])
    oac_id, oac = one(synth.of_type("AWS::CloudFront::OriginAccessControl"))
    assert origin["OriginAccessControlId"] == {"Fn::GetAtt": [oac_id, "Id"]}
    assert origin["S3OriginConfig"] == {"OriginAccessIdentity": ""}
    assert oac["OriginAccessControlConfig"] == {
        "Name": oac["OriginAccessControlConfig"]["Name"],
        "OriginAccessControlOriginType": "s3",
        "SigningBehavior": "always",
        "SigningProtocol": "sigv4",
    }
    assert not synth.of_type("AWS::CloudFront::CloudFrontOriginAccessIdentity")


def test_viewers_use_https_and_the_distribution_logs(synth: Any) -> None:
    config = distribution(synth)
    assert config["DefaultCacheBehavior"]["ViewerProtocolPolicy"] == "redirect-to-https"
    assert [b["ViewerProtocolPolicy"] for b in config["CacheBehaviors"]] == ["https-only"]
    assert config["Logging"]["Bucket"]["Fn::GetAtt"][1] == "RegionalDomainName"
    assert config["DefaultRootObject"] == "index.html"


def test_api_paths_go_to_the_api_stage_uncached_with_every_viewer_header_but_host(synth: Any) -> None:
    config = distribution(synth)
    (behavior,) = config["CacheBehaviors"]
    assert behavior["PathPattern"] == f"{API_PREFIX}/*"
    assert sorted(behavior["AllowedMethods"]) == sorted(ALL_METHODS)
    assert behavior["CachePolicyId"] == resolved(synth, cloudfront.CachePolicy.CACHING_DISABLED.cache_policy_id)
    assert behavior["OriginRequestPolicyId"] == resolved(
        synth, cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.origin_request_policy_id
    )
    origin = next(o for o in config["Origins"] if o["Id"] == behavior["TargetOriginId"])
    (api_id,) = synth.of_type("AWS::ApiGateway::RestApi")
    host = origin["DomainName"]["Fn::Join"][1]
    assert host[0] == {"Ref": api_id} and host[1] == ".execute-api."
    # An execute-api URL's first path segment is the stage: /api/clusters reaches /v1/clusters.
    # (A stage's Ref is its name.)
    stage_id, stage = one(synth.of_type("AWS::ApiGateway::Stage"))
    assert stage["StageName"] == "v1"
    assert origin["OriginPath"] == {"Fn::Join": ["", ["/", {"Ref": stage_id}]]}
    assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    assert origin["CustomOriginConfig"]["OriginSSLProtocols"] == ["TLSv1.2"]
    (association,) = behavior["FunctionAssociations"]
    function = synth.resources[association["FunctionARN"]["Fn::GetAtt"][0]]["Properties"]
    assert association["EventType"] == "viewer-request"
    assert function["FunctionCode"] == STRIP_API_PREFIX


def test_the_spa_fallback_is_on_the_default_behaviour_only(synth: Any) -> None:
    """A distribution's custom error responses would turn the API's 403 and 404 into index.html: none; the SPA's
    routes are rewritten by a function of the default behaviour alone."""
    config = distribution(synth)
    assert "CustomErrorResponses" not in config
    (association,) = config["DefaultCacheBehavior"]["FunctionAssociations"]
    function = synth.resources[association["FunctionARN"]["Fn::GetAtt"][0]]["Properties"]
    assert function["FunctionCode"] == SPA_ROUTES
    assert function["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"


def run_viewer_request(code: str, uri: str) -> str:
    script = f"{code}\nprocess.stdout.write(handler({{request: {{uri: {json.dumps(uri)}}}}}).uri);"
    return subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True, timeout=30).stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="node (which CDK needs anyway) runs the functions")
@pytest.mark.parametrize(
    ("uri", "expected"),
    [("/api/clusters", "/clusters"), ("/api/clusters/demo/nodes", "/clusters/demo/nodes"), ("/api/", "/")],
)
def test_the_api_prefix_is_stripped_before_the_stage_path(uri: str, expected: str) -> None:
    assert run_viewer_request(STRIP_API_PREFIX, uri) == expected


@pytest.mark.skipif(shutil.which("node") is None, reason="node (which CDK needs anyway) runs the functions")
@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("/", "/index.html"),
        ("/clusters/demo", "/index.html"),
        ("/operations/op-1?tab=stages", "/index.html"),
        ("/assets/index-1a2b3c.js", "/assets/index-1a2b3c.js"),
        ("/config.json", "/config.json"),
    ],
)
def test_the_spa_routes_are_index_html_and_files_are_themselves(uri: str, expected: str) -> None:
    assert run_viewer_request(SPA_ROUTES, uri) == expected


def test_responses_carry_the_security_headers(synth: Any) -> None:
    _, policy = one(synth.of_type("AWS::CloudFront::ResponseHeadersPolicy"))
    headers = policy["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    assert headers["StrictTransportSecurity"]["AccessControlMaxAgeSec"] >= 31536000
    assert headers["StrictTransportSecurity"]["IncludeSubdomains"] is True
    assert headers["ContentTypeOptions"] == {"Override": True}
    assert headers["FrameOptions"] == {"FrameOption": "DENY", "Override": True}
    assert headers["ReferrerPolicy"]["ReferrerPolicy"] == "strict-origin-when-cross-origin"
    csp = json.dumps(headers["ContentSecurityPolicy"]["ContentSecurityPolicy"])
    assert "default-src 'self'" in csp and "script-src 'self';" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    (domain,) = synth.of_type("AWS::Cognito::UserPoolDomain")
    assert csp.count(domain) == 2  # connect-src (the token endpoint) and form-action
    config = distribution(synth)
    for behavior in [config["DefaultCacheBehavior"], *config["CacheBehaviors"]]:
        assert behavior["ResponseHeadersPolicyId"] == {
            "Ref": one(synth.of_type("AWS::CloudFront::ResponseHeadersPolicy"))[0]
        }


# --- sign-in ---------------------------------------------------------------------------------------


def test_the_console_app_client_is_public_and_uses_only_the_code_flow(synth: Any) -> None:
    props = console_client(synth)
    assert props["GenerateSecret"] is False
    assert props["AllowedOAuthFlows"] == ["code"]
    assert props["AllowedOAuthFlowsUserPoolClient"] is True
    assert sorted(props["AllowedOAuthScopes"]) == ["email", "openid", "profile"]
    assert props["SupportedIdentityProviders"] == ["COGNITO"]
    (distribution_id,) = synth.of_type("AWS::CloudFront::Distribution")
    for urls in (props["CallbackURLs"], props["LogoutURLs"]):
        (url,) = urls  # no localhost unless consoleLocalDev
        assert url == {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [distribution_id, "DomainName"]}, "/"]]}


def test_the_api_authorizer_accepts_the_console_clients_id_tokens(synth: Any) -> None:
    """API Gateway's Cognito authorizer validates ID tokens of its pools when the method names no OAuth scopes: the
    console's client is in that pool and asks for openid (so it gets an ID token), and config.json says to send it."""
    (pool,) = synth.of_type("AWS::Cognito::UserPool")
    (authorizer,) = synth.of_type("AWS::ApiGateway::Authorizer").values()
    assert authorizer["Properties"]["ProviderARNs"] == [{"Fn::GetAtt": [pool, "Arn"]}]
    cognito_methods = [
        m["Properties"]
        for m in synth.of_type("AWS::ApiGateway::Method").values()
        if m["Properties"]["AuthorizationType"] == "COGNITO_USER_POOLS"
    ]
    assert cognito_methods and all("AuthorizationScopes" not in m for m in cognito_methods)
    assert console_client(synth)["UserPoolId"] == {"Ref": pool}
    assert "openid" in console_client(synth)["AllowedOAuthScopes"]
    assert synth.stack.console.config["auth"]["apiToken"] == "id"


def test_the_hosted_ui_domain_has_a_default_prefix_unique_per_account_and_deployment(synth: Any) -> None:
    _, domain = one(synth.of_type("AWS::Cognito::UserPoolDomain"))
    assert domain["Domain"] == {"Fn::Join": ["", ["instantstartstack-", {"Ref": "AWS::AccountId"}]]}


# --- content and outputs ---------------------------------------------------------------------------


def test_config_json_names_the_api_the_pool_the_client_and_the_hosted_ui(synth: Any) -> None:
    config = resolved(synth, synth.stack.console.config)
    (pool,) = synth.of_type("AWS::Cognito::UserPool")
    (domain,) = synth.of_type("AWS::Cognito::UserPoolDomain")
    (distribution_id,) = synth.of_type("AWS::CloudFront::Distribution")
    (client,) = [
        key for key in synth.of_type("AWS::Cognito::UserPoolClient") if key.startswith("UserPoolConsoleClient")
    ]
    assert config["apiBase"] == "/api"
    auth = config["auth"]
    assert auth["mode"] == "cognito"
    assert auth["region"] == {"Ref": "AWS::Region"}
    assert auth["userPoolId"] == {"Ref": pool}
    assert auth["clientId"] == {"Ref": client}
    assert {"Ref": domain} in auth["hostedUi"]["Fn::Join"][1]
    assert auth["redirectUri"] == auth["logoutUri"]
    assert {"Fn::GetAtt": [distribution_id, "DomainName"]} in auth["redirectUri"]["Fn::Join"][1]
    assert auth["scopes"] == ["openid", "email", "profile"]


def test_the_console_url_and_the_hosted_ui_are_stack_outputs(synth: Any) -> None:
    outputs = synth.template["Outputs"]
    (distribution_id,) = synth.of_type("AWS::CloudFront::Distribution")
    assert outputs["ConsoleUrl"]["Value"] == {
        "Fn::Join": ["", ["https://", {"Fn::GetAtt": [distribution_id, "DomainName"]}, "/"]]
    }
    assert "CognitoDomain" in outputs


def test_without_a_build_only_config_json_is_deployed_and_the_outputs_say_so(tmp_path: Path) -> None:
    template = console_template({"consoleDir": str(tmp_path)})
    (deployment,) = of_type(template, "Custom::CDKBucketDeployment")
    assert len(deployment["SourceObjectKeys"]) == 1
    assert deployment["Prune"] is False
    assert deployment["SystemMetadata"] == {"cache-control": "no-cache"}
    assert "ConsoleNotBuilt" in template["Outputs"]


def test_a_build_is_deployed_with_hashed_assets_cached_and_pages_revalidated(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "index-abc123.js").write_text("export {};")
    template = console_template({"consoleDir": str(tmp_path)})
    assets, pages = of_type(template, "Custom::CDKBucketDeployment")
    assert assets["SystemMetadata"] == {"cache-control": "public, max-age=31536000"}
    assert assets["Exclude"] == ["index.html", "config.json"]
    assert pages["SystemMetadata"] == {"cache-control": "no-cache"}
    assert pages["Include"] == ["index.html", "config.json"] and pages["Prune"] is False
    assert len(pages["SourceObjectKeys"]) == 2
    assert "ConsoleNotBuilt" not in template.get("Outputs", {})


# --- context ---------------------------------------------------------------------------------------


def console_template(context: dict[str, Any]) -> dict[str, Any]:
    """A small stack with a pool, an API and the console alone: each context choice synthesizes in seconds."""
    app = cdk.App(context=context)
    stack = cdk.Stack(app, "Probe")
    pool = cognito.UserPool(stack, "UserPool")
    api = apigw.RestApi(stack, "Api", deploy_options=apigw.StageOptions(stage_name="v1"))
    api.root.add_method("GET", apigw.MockIntegration())
    acks = Acknowledgements()
    Console(stack, "Console", user_pool=pool, api=api, ws_url="wss://example.com/v1", acks=acks)
    acks.apply()
    return cdk.assertions.Template.from_stack(stack).to_json()  # type: ignore[no-any-return]


def of_type(template: dict[str, Any], resource_type: str) -> list[dict[str, Any]]:
    return [r["Properties"] for r in template["Resources"].values() if r["Type"] == resource_type]


def test_a_custom_domain_and_certificate_serve_tls_1_2_at_least() -> None:
    arn = "arn:aws:acm:us-east-1:123456789012:certificate/abc"
    template = console_template({"consoleDomainName": "console.example.com", "consoleCertificateArn": arn})
    (props,) = of_type(template, "AWS::CloudFront::Distribution")
    config = props["DistributionConfig"]
    assert config["Aliases"] == ["console.example.com"]
    assert config["ViewerCertificate"] == {
        "AcmCertificateArn": arn,
        "MinimumProtocolVersion": "TLSv1.2_2021",
        "SslSupportMethod": "sni-only",
    }
    (client,) = of_type(template, "AWS::Cognito::UserPoolClient")
    assert client["CallbackURLs"] == ["https://console.example.com/"]


def test_a_domain_without_its_certificate_is_refused() -> None:
    with pytest.raises(ValueError, match="go together"):
        console_template({"consoleDomainName": "console.example.com"})


def test_local_development_adds_the_vite_dev_server_to_the_callbacks_only_when_asked() -> None:
    (client,) = of_type(console_template({"consoleLocalDev": "true"}), "AWS::Cognito::UserPoolClient")
    assert client["CallbackURLs"][1:] == [LOCAL_DEV_URL] and client["LogoutURLs"][1:] == [LOCAL_DEV_URL]


def test_a_given_domain_prefix_and_web_acl_are_used() -> None:
    web_acl = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/console/abc"
    template = console_template({"cognitoDomainPrefix": "my-console", "consoleWebAclArn": web_acl})
    (domain,) = of_type(template, "AWS::Cognito::UserPoolDomain")
    assert domain["Domain"] == "my-console"
    (props,) = of_type(template, "AWS::CloudFront::Distribution")
    assert props["DistributionConfig"]["WebACLId"] == web_acl
