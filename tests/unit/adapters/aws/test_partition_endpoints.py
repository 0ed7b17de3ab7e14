"""Hosts and ARNs that differ by partition come from botocore's partition data: the EKS token's STS host, the OIDC
provider ARNs the trust check accepts and those the IAM grants name, in aws, aws-cn and aws-us-gov."""

from __future__ import annotations

import base64
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import parse_qs, urlparse

import boto3
import pytest
from botocore.credentials import Credentials
from botocore.stub import Stubber

from controlplane.adapters.aws import iam as iam_adapter
from controlplane.adapters.aws.iam import AwsIamGateway
from controlplane.adapters.k8s.client import TOKEN_PREFIX, bearer_token
from controlplane.core.identity import web_identity_trust
from controlplane.models.errors import ForeignResourceError
from steps.registry import STEPS

ACCOUNT = "123456789012"
# (Region, its partition, the partition's DNS suffix as AWS documents it)
PARTITIONS = [
    ("us-west-2", "aws", "amazonaws.com"),
    ("cn-north-1", "aws-cn", "amazonaws.com.cn"),
    ("us-gov-west-1", "aws-us-gov", "amazonaws.com"),
]


def presigned_url(token: str) -> Any:
    encoded = token.removeprefix(TOKEN_PREFIX)
    return urlparse(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode())


def provider_arn(region: str, partition: str, suffix: str) -> str:
    return f"arn:{partition}:iam::{ACCOUNT}:oidc-provider/oidc.eks.{region}.{suffix}/id/ABCDEF0123456789"


@pytest.mark.parametrize(("region", "partition", "suffix"), PARTITIONS)
def test_the_eks_token_is_presigned_for_the_regional_sts_host_of_the_cluster_s_partition(
    region: str, partition: str, suffix: str
) -> None:
    url = presigned_url(bearer_token("eks-cluster-demo", region, Credentials("AKID", "secret", "session")))

    query = parse_qs(url.query)
    assert url.hostname == f"sts.{region}.{suffix}"
    assert query["X-Amz-Credential"][0].endswith(f"/{region}/sts/aws4_request")
    assert query["X-Amz-SignedHeaders"] == ["host;x-k8s-aws-id"]


@pytest.mark.parametrize(("region", "partition", "suffix"), PARTITIONS)
def test_the_oidc_provider_grants_name_the_provider_of_a_cluster_in_each_partition(
    region: str, partition: str, suffix: str
) -> None:
    """CloudFormation fills `{url_suffix}` with AWS::URLSuffix, the partition's DNS suffix."""
    values = {"partition": partition, "account": ACCOUNT, "region": region, "url_suffix": suffix}
    (grant,) = [g for g in STEPS["Ensure OIDC Provider"].grants if "iam:CreateOpenIDConnectProvider" in g.actions]

    resources = [template.format(**values) for template in grant.resources]

    assert any(fnmatchcase(provider_arn(region, partition, suffix), resource) for resource in resources), resources


def stubbed_iam(monkeypatch: pytest.MonkeyPatch) -> Stubber:
    iam = boto3.client("iam", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b")
    monkeypatch.setattr(iam_adapter, "client", lambda service, region=None: iam)
    stubber = Stubber(iam)
    stubber.activate()
    return stubber


@pytest.mark.parametrize(("region", "partition", "suffix"), PARTITIONS)
def test_a_role_trusting_its_partition_s_eks_oidc_provider_is_created(
    monkeypatch: pytest.MonkeyPatch, region: str, partition: str, suffix: str
) -> None:
    stubber = stubbed_iam(monkeypatch)
    boundary = f"arn:{partition}:iam::{ACCOUNT}:policy/workload-boundary"
    issuer = f"https://oidc.eks.{region}.{suffix}/id/ABCDEF0123456789"
    role_arn = f"arn:{partition}:iam::{ACCOUNT}:role/csi"
    created = {"Path": "/", "RoleName": "csi", "RoleId": "AROAEXAMPLE0000000000", "Arn": role_arn}
    stubber.add_response("create_role", {"Role": {**created, "CreateDate": "2026-01-01T00:00:00Z"}})

    trust = web_identity_trust(provider_arn(region, partition, suffix), issuer, "kube-system", "s3-csi-driver-sa")
    role = AwsIamGateway().create_role("csi", trust, {}, boundary)

    assert role.arn == role_arn
    stubber.assert_no_pending_responses()


@pytest.mark.parametrize(
    ("partition", "provider"),
    [
        # China's issuer host ends in amazonaws.com.cn, and GovCloud's ARNs start arn:aws-us-gov.
        ("aws-cn", provider_arn("cn-north-1", "aws-cn", "amazonaws.com")),
        ("aws-us-gov", provider_arn("us-gov-west-1", "aws", "amazonaws.com")),
        ("aws", provider_arn("cn-north-1", "aws", "amazonaws.com.cn")),
    ],
)
def test_a_trust_in_an_oidc_provider_outside_the_control_plane_s_partition_is_refused_before_iam_is_called(
    monkeypatch: pytest.MonkeyPatch, partition: str, provider: str
) -> None:
    stubber = stubbed_iam(monkeypatch)
    boundary = f"arn:{partition}:iam::{ACCOUNT}:policy/workload-boundary"
    trust = web_identity_trust(provider, "https://oidc.eks.example/id/ABCDEF0123456789", "kube-system", "sa")

    with pytest.raises(ForeignResourceError, match=f"not an EKS OIDC provider of account {ACCOUNT} in {partition}"):
        AwsIamGateway().create_role("csi", trust, {}, boundary)
    stubber.assert_no_pending_responses()
