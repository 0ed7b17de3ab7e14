"""The console's files in its bucket: `frontend/dist` when it was built (hashed assets cached for a year), and
`index.html` with `config.json` always (revalidated on every load, so a deployment is seen at once without a
CloudFront invalidation), through CDK's bucket deployment, whose role may do only what its handler does."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aws_cdk import Aws, CfnOutput, DefaultStackSynthesizer, Duration, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from controlplane.access.grant import Grant
from infra.console.edge import INDEX_FILE
from infra.grants import add_grants
from infra.lambdas import LOG_RETENTION, lambda_role
from infra.nag import Acknowledgements

# The console's build; the `consoleDir` context key points elsewhere.
DIST_DIR = Path(__file__).resolve().parents[3] / "frontend" / "dist"
CONFIG_FILE = "config.json"
# Built assets carry a content hash in their names: cached for a year. index.html and config.json name them:
# revalidated on every load.
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


def deploy(scope: Construct, bucket: s3.IBucket, config: Mapping[str, Any], acks: Acknowledgements) -> None:
    """The build when there is one, and `config` as config.json always."""
    role = lambda_role(scope, "DeploymentRole", "console deployment")
    log_group = logs.LogGroup(scope, "DeploymentLogs", retention=LOG_RETENTION, removal_policy=RemovalPolicy.DESTROY)
    log_group.grant_write(role)
    # What the handler does, granted here; CDK's own grants (s3:GetObject*, s3:List*, ...) are not taken.
    qualifier = Stack.of(scope).synthesizer.bootstrap_qualifier or DefaultStackSynthesizer.DEFAULT_QUALIFIER
    assets_bucket = f"cdk-{qualifier}-assets-{Aws.ACCOUNT_ID}-{Aws.REGION}"
    add_grants(role, DEPLOYMENT_GRANTS, {"console_bucket_arn": bucket.bucket_arn, "assets_bucket": assets_bucket}, acks)
    deployer = role.without_policy_updates()
    dist = Path(scope.node.try_get_context("consoleDir") or DIST_DIR)
    built = dist.joinpath(INDEX_FILE).is_file()
    config_source = s3deploy.Source.json_data(CONFIG_FILE, config)
    if built:
        s3deploy.BucketDeployment(
            scope,
            "Assets",
            sources=[s3deploy.Source.asset(str(dist))],
            exclude=[INDEX_FILE, CONFIG_FILE],
            cache_control=IMMUTABLE,
            destination_bucket=bucket,
            role=deployer,
            log_group=log_group,
        )
    s3deploy.BucketDeployment(
        scope,
        "Pages",
        sources=[s3deploy.Source.asset(str(dist)), config_source] if built else [config_source],
        exclude=["*"],
        include=[INDEX_FILE, CONFIG_FILE],
        prune=False,
        cache_control=REVALIDATE,
        destination_bucket=bucket,
        role=deployer,
        log_group=log_group,
    )
    if not built:
        CfnOutput(
            Stack.of(scope),
            "ConsoleNotBuilt",
            value=f"{dist} was absent at synth: only {CONFIG_FILE} is deployed; build the console, then deploy",
        )
    _acknowledge_handler(role, acks)


def _acknowledge_handler(role: iam.Role, acks: Acknowledgements) -> None:
    """CDK's bucket deployment function is a singleton of the stack, on the runtime aws-cdk-lib chooses."""
    stack = Stack.of(role)
    role_arn = stack.resolve(role.role_arn)
    (function,) = [
        child
        for child in stack.node.children
        if isinstance(child, lambda_.Function) and child.role and stack.resolve(child.role.role_arn) == role_arn
    ]
    acks.add(
        function,
        "AwsSolutions-L1",
        "The runtime of CDK's bucket deployment handler is chosen by aws-cdk-lib (its bundled handler and AWS CLI "
        "layer are tested together); it moves with the library",
    )
