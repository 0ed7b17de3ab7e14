"""S3 buckets the control plane owns (lifecycle scripts, data)."""

from __future__ import annotations

import json

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, session, tag_dict, tag_list

_ABSENT = {"NoSuchBucket", "404", "NoSuchKey", "NoSuchTagSet", "AccessDenied", "403"}


class AwsBucketGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def bucket_tags(self, bucket: str) -> dict[str, str] | None:
        s3 = client("s3", self._region)
        try:
            s3.head_bucket(Bucket=bucket)
        except ClientError as error:
            if error_code(error) in _ABSENT:
                return None
            raise
        try:
            return tag_dict(s3.get_bucket_tagging(Bucket=bucket)["TagSet"])
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
        s3.put_bucket_tagging(Bucket=bucket, Tagging={"TagSet": tag_list(tags)})
        s3.put_public_access_block(
            Bucket=bucket,
            PublicAccessBlockConfiguration={
                "BlockPublicAcls": True,
                "IgnorePublicAcls": True,
                "BlockPublicPolicy": True,
                "RestrictPublicBuckets": True,
            },
        )
        s3.put_bucket_encryption(
            Bucket=bucket,
            ServerSideEncryptionConfiguration={
                "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
            },
        )
        partition = session().get_partition_for_region(self._region)
        arn = f"arn:{partition}:s3:::{bucket}"
        s3.put_bucket_policy(
            Bucket=bucket,
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
        client("s3", self._region).put_object(Bucket=bucket, Key=key, Body=body)

    def object_body(self, bucket: str, key: str) -> bytes | None:
        try:
            return bytes(client("s3", self._region).get_object(Bucket=bucket, Key=key)["Body"].read())
        except ClientError as error:
            if error_code(error) in _ABSENT:
                return None
            raise

    def delete_bucket(self, bucket: str) -> None:
        s3 = client("s3", self._region)
        try:
            for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket):
                objects = [
                    {"Key": item["Key"], "VersionId": item["VersionId"]}
                    for item in page.get("Versions", []) + page.get("DeleteMarkers", [])
                ]
                if objects:
                    s3.delete_objects(Bucket=bucket, Delete={"Objects": objects, "Quiet": True})
            s3.delete_bucket(Bucket=bucket)
        except ClientError as error:
            if error_code(error) not in _ABSENT:
                raise
