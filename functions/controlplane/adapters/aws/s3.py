"""S3 buckets the control plane owns (lifecycle scripts, data).

Every call names this account as the expected bucket owner (`ExpectedBucketOwner`): a bucket of our name in
another account answers 403, which is never taken for "absent" (HyperPod nodes run lifecycle scripts as root).
"""

from __future__ import annotations

import json
from functools import cache

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, session, tag_dict, tag_list
from controlplane.core.paging import decode_token, encode_token, invalid_token
from controlplane.core.ports.storage import ObjectListing, StoredObject
from controlplane.models.errors import ForeignResourceError

_ABSENT = {"NoSuchBucket", "404", "NoSuchKey"}
_NOT_OURS = {"AccessDenied", "403"}


@cache
def _account() -> str:
    return str(client("sts").get_caller_identity()["Account"])


class AwsBucketGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def bucket_tags(self, bucket: str) -> dict[str, str] | None:
        s3 = client("s3", self._region)
        try:
            s3.head_bucket(Bucket=bucket, ExpectedBucketOwner=_account())
        except ClientError as error:
            if error_code(error) in _ABSENT:
                return None
            raise _foreign(bucket, error) from None
        try:
            return tag_dict(s3.get_bucket_tagging(Bucket=bucket, ExpectedBucketOwner=_account())["TagSet"])
        except ClientError as error:
            if error_code(error) == "NoSuchTagSet":
                return {}
            raise

    def create_bucket(self, bucket: str, tags: dict[str, str]) -> None:
        s3 = client("s3", self._region)
        request: dict[str, object] = {"Bucket": bucket}
        if self._region != "us-east-1":
            request["CreateBucketConfiguration"] = {"LocationConstraint": self._region}
        s3.create_bucket(**request)
        # Tags first: they are what marks the bucket as ours if a later call fails and the step runs again.
        owner = _account()
        s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": tag_list(tags)}, ExpectedBucketOwner=owner)
        s3.put_public_access_block(
            Bucket=bucket,
            ExpectedBucketOwner=owner,
            PublicAccessBlockConfiguration={
                "BlockPublicAcls": True,
                "IgnorePublicAcls": True,
                "BlockPublicPolicy": True,
                "RestrictPublicBuckets": True,
            },
        )
        s3.put_bucket_encryption(
            Bucket=bucket,
            ExpectedBucketOwner=owner,
            ServerSideEncryptionConfiguration={
                "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
            },
        )
        partition = session().get_partition_for_region(self._region)
        arn = f"arn:{partition}:s3:::{bucket}"
        s3.put_bucket_policy(
            Bucket=bucket,
            ExpectedBucketOwner=owner,
            Policy=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": "DenyInsecureTransport",
                            "Effect": "Deny",
                            "Principal": "*",
                            "Action": "s3:*",
                            "Resource": [arn, f"{arn}/*"],
                            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                        }
                    ],
                }
            ),
        )

    def put_object(self, bucket: str, key: str, body: bytes) -> None:
        client("s3", self._region).put_object(Bucket=bucket, Key=key, Body=body, ExpectedBucketOwner=_account())

    def object_body(self, bucket: str, key: str) -> bytes | None:
        try:
            response = client("s3", self._region).get_object(Bucket=bucket, Key=key, ExpectedBucketOwner=_account())
            return bytes(response["Body"].read())
        except ClientError as error:
            if error_code(error) in _ABSENT:
                return None
            if error_code(error) in _NOT_OURS:
                raise _foreign(bucket, error) from None
            raise

    def list_objects(self, bucket: str, prefix: str, limit: int, token: str | None) -> ObjectListing:
        """A page by key; the token is ours (the last key listed, which the next page starts after), never S3's
        ContinuationToken, so a token S3 would not take never reaches it."""
        request: dict[str, object] = {
            "Bucket": bucket,
            "Prefix": prefix,
            "MaxKeys": limit,
            "ExpectedBucketOwner": _account(),
        }
        if token:
            position = decode_token(token)
            if not isinstance(position, dict) or not isinstance(position.get("after"), str):
                raise invalid_token()
            request["StartAfter"] = position["after"]
        try:
            response = client("s3", self._region).list_objects_v2(**request)
        except ClientError as error:
            if error_code(error) in _NOT_OURS:
                raise _foreign(bucket, error) from None
            raise
        items = [
            StoredObject(item["Key"], int(item.get("Size", 0)), item.get("LastModified"))
            for item in response.get("Contents", [])
        ]
        truncated = response.get("IsTruncated") and items
        return ObjectListing(items, encode_token({"after": items[-1].key}) if truncated else None)

    def delete_bucket(self, bucket: str) -> None:
        s3 = client("s3", self._region)
        owner = _account()
        try:
            for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket, ExpectedBucketOwner=owner):
                objects = [
                    {"Key": item["Key"], "VersionId": item["VersionId"]}
                    for item in page.get("Versions", []) + page.get("DeleteMarkers", [])
                ]
                if objects:
                    s3.delete_objects(
                        Bucket=bucket, Delete={"Objects": objects, "Quiet": True}, ExpectedBucketOwner=owner
                    )
            s3.delete_bucket(Bucket=bucket, ExpectedBucketOwner=owner)
        except ClientError as error:
            if error_code(error) in _NOT_OURS:
                raise _foreign(bucket, error) from None
            if error_code(error) not in _ABSENT:
                raise


def _foreign(bucket: str, error: ClientError) -> ForeignResourceError:
    return ForeignResourceError(
        f"Bucket {bucket} is not this account's, or the control plane may not read it ({error_code(error)}); "
        "it is never written to. Delete or rename it, then resume."
    )
