"""The sandbox's S3 honours ExpectedBucketOwner: a bucket with our name in another account is refused (403)."""

from collections.abc import Iterator

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from controlplane.adapters.aws.s3 import AwsBucketGateway
from controlplane.core.naming import lifecycle_bucket_name
from controlplane.models.errors import ForeignResourceError
from sandbox.aws.s3 import S3Extension

ACCOUNT = "123456789012"
OTHER_ACCOUNT = "210987654321"
REGION = "us-west-2"
BUCKET = lifecycle_bucket_name("demo", ACCOUNT, REGION)


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[S3Extension]:
    monkeypatch.setenv("MOTO_ACCOUNT_ID", ACCOUNT)
    with mock_aws():
        extension = S3Extension(ACCOUNT)
        extension.install()
        try:
            boto3.client("s3", region_name=REGION).create_bucket(
                Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION}
            )
            yield extension
        finally:
            extension.uninstall()


def test_a_mismatched_expected_owner_is_access_denied(s3: S3Extension) -> None:
    client = boto3.client("s3", region_name=REGION)
    client.head_bucket(Bucket=BUCKET, ExpectedBucketOwner=ACCOUNT)
    with pytest.raises(ClientError) as denied:
        client.get_bucket_tagging(Bucket=BUCKET, ExpectedBucketOwner=OTHER_ACCOUNT)
    assert denied.value.response["Error"]["Code"] == "AccessDenied"
    assert denied.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_a_bucket_with_our_name_owned_by_another_account_never_receives_lifecycle_scripts(s3: S3Extension) -> None:
    s3.give_to_account(BUCKET, OTHER_ACCOUNT)
    buckets = AwsBucketGateway(REGION)

    with pytest.raises(ForeignResourceError):
        buckets.bucket_tags(BUCKET)
    with pytest.raises(ClientError) as denied:
        buckets.put_object(BUCKET, "lifecycle/on_create.sh", b"#!/bin/bash\n")
    assert denied.value.response["Error"]["Code"] == "AccessDenied"
    objects = boto3.client("s3", region_name=REGION).list_objects_v2(Bucket=BUCKET)
    assert objects.get("KeyCount", 0) == 0
