"""The sandbox's IAM holds AWS's managed policies in the `aws` partition, the sandbox account's, and only there:
moto creates an IAM backend for every partition at an account's first request."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws
from moto.iam.aws_managed_policies import aws_managed_policies_data
from moto.iam.models import iam_backends

from sandbox.aws.iam import IamExtension

ACCOUNT = "123456789012"


@pytest.fixture
def iam() -> Iterator[None]:
    with mock_aws(config={"iam": {"load_aws_managed_policies": True}}):
        extension = IamExtension()
        extension.install()
        try:
            yield
        finally:
            extension.uninstall()


def test_the_aws_partition_has_every_managed_policy_and_they_attach(iam: None) -> None:
    client = boto3.client("iam", region_name="us-west-2")
    listed = [
        policy["PolicyName"]
        for page in client.get_paginator("list_policies").paginate(Scope="AWS")
        for policy in page["Policies"]
    ]
    assert sorted(listed) == sorted(json.loads(aws_managed_policies_data))
    trust = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": "eks.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    }
    client.create_role(RoleName="cluster", AssumeRolePolicyDocument=json.dumps(trust))
    client.attach_role_policy(RoleName="cluster", PolicyArn="arn:aws:iam::aws:policy/AmazonEKSClusterPolicy")
    attached = client.list_attached_role_policies(RoleName="cluster")["AttachedPolicies"]
    assert [policy["PolicyName"] for policy in attached] == ["AmazonEKSClusterPolicy"]


def test_the_other_partitions_get_none(iam: None) -> None:
    boto3.client("iam", region_name="us-west-2").list_roles()
    assert iam_backends[ACCOUNT]["aws"].aws_managed_policies
    for partition in ("aws-cn", "aws-us-gov"):
        assert iam_backends[ACCOUNT][partition].aws_managed_policies == []
