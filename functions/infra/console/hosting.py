"""The console's buckets: the site's (private, read by CloudFront only) and the one its access logs go to."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.nag import Acknowledgements

LOG_DAYS = 90  # the log groups' retention (infra.lambdas.LOG_RETENTION)


def log_bucket(scope: Construct, acks: Acknowledgements) -> s3.Bucket:
    bucket = s3.Bucket(
        scope,
        "LogBucket",
        block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
        encryption=s3.BucketEncryption.S3_MANAGED,
        enforce_ssl=True,
        # CloudFront's standard logs are written under an ACL grant to its log delivery account.
        object_ownership=s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
        lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(LOG_DAYS))],
        removal_policy=RemovalPolicy.RETAIN,
    )
    acks.add(
        bucket,
        "AwsSolutions-S1",
        "This bucket receives the console bucket's server access logs and the distribution's access logs; "
        "logging its own accesses into itself would log every log delivery",
    )
    return bucket


def site_bucket(scope: Construct, logs: s3.IBucket) -> s3.Bucket:
    """The console's files. Its server access logs are delivered under a bucket policy (the `Console` sets the
    feature flag), never a bucket ACL."""
    return s3.Bucket(
        scope,
        "Bucket",
        block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
        encryption=s3.BucketEncryption.S3_MANAGED,
        enforce_ssl=True,
        object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
        server_access_logs_bucket=logs,
        server_access_logs_prefix="s3/",
        removal_policy=RemovalPolicy.RETAIN,
    )
