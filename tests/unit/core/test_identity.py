"""Every trust policy the control plane writes is checked before it reaches IAM: only the expected AWS services, or
an EKS OIDC provider of this account scoped to one service account, may assume the roles it creates."""

from __future__ import annotations

import pytest

from controlplane.core.identity import check_trust_policy, service_statement, service_trust, web_identity_trust
from controlplane.models.errors import ForeignResourceError

ACCOUNT = "123456789012"
ISSUER = "https://oidc.eks.eu-west-1.amazonaws.com/id/ABCDEF0123456789"
PROVIDER = f"arn:aws:iam::{ACCOUNT}:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/ABCDEF0123456789"


def test_the_trust_policies_the_control_plane_builds_pass() -> None:
    check_trust_policy(service_trust("eks.amazonaws.com"), ACCOUNT, "aws", "amazonaws.com")
    check_trust_policy(
        service_trust("pods.eks.amazonaws.com", ("sts:AssumeRole", "sts:TagSession")), ACCOUNT, "aws", "amazonaws.com"
    )
    trust = web_identity_trust(PROVIDER, ISSUER, "kube-system", "s3-csi-driver-sa")
    trust["Statement"].append(service_statement("sagemaker.amazonaws.com", f"arn:aws:sagemaker:eu-west-1:{ACCOUNT}:*"))
    check_trust_policy(trust, ACCOUNT, "aws", "amazonaws.com")


def test_an_oidc_provider_of_another_account_is_refused() -> None:
    other = PROVIDER.replace(ACCOUNT, "999999999999")
    with pytest.raises(ForeignResourceError, match="not an EKS OIDC provider of account"):
        check_trust_policy(web_identity_trust(other, ISSUER, "kube-system", "sa"), ACCOUNT, "aws", "amazonaws.com")


def test_an_oidc_provider_that_is_not_an_eks_issuer_is_refused() -> None:
    github = f"arn:aws:iam::{ACCOUNT}:oidc-provider/token.actions.githubusercontent.com"
    with pytest.raises(ForeignResourceError):
        check_trust_policy(web_identity_trust(github, ISSUER, "kube-system", "sa"), ACCOUNT, "aws", "amazonaws.com")


def test_a_web_identity_trust_without_a_service_account_is_refused() -> None:
    trust = web_identity_trust(PROVIDER, ISSUER, "kube-system", "sa")
    del trust["Statement"][0]["Condition"]
    with pytest.raises(ForeignResourceError, match="one Kubernetes service account"):
        check_trust_policy(trust, ACCOUNT, "aws", "amazonaws.com")


@pytest.mark.parametrize(
    "principal",
    [{"Service": "lambda.amazonaws.com"}, {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "*", {"AWS": "*"}],
)
def test_other_principals_are_refused(principal: object) -> None:
    trust = service_trust("eks.amazonaws.com")
    trust["Statement"][0]["Principal"] = principal
    with pytest.raises(ForeignResourceError):
        check_trust_policy(trust, ACCOUNT, "aws", "amazonaws.com")


def test_a_statement_allowing_more_than_assuming_the_role_is_refused() -> None:
    trust = service_trust("eks.amazonaws.com")
    trust["Statement"][0]["Action"] = ["sts:AssumeRole", "iam:PassRole"]
    with pytest.raises(ForeignResourceError, match="more than assuming"):
        check_trust_policy(trust, ACCOUNT, "aws", "amazonaws.com")
