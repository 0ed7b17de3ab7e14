"""The IAM adapter on moto, where clusters share the account: what another cluster's deletion removes in between."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto import mock_aws

from controlplane.adapters.aws import session
from controlplane.adapters.aws.iam import AwsIamGateway

ISSUER = "https://oidc.eks.us-west-2.amazonaws.com/id/0123456789ABCDEF"


@pytest.fixture
def iam(monkeypatch) -> Iterator[AwsIamGateway]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        session._client.cache_clear()
        yield AwsIamGateway()
    session._client.cache_clear()


def test_an_oidc_provider_deleted_after_it_was_listed_has_no_tags(iam):
    """Found by the soak: one cluster's Delete Dependency Identities listed the account's providers while another
    cluster's deletion removed its own, and reading that one's tags failed the step with NoSuchEntity."""
    arn = iam.create_oidc_provider(ISSUER, {"instantstart:cluster": "other"})
    assert iam.list_oidc_providers() == [arn]
    iam.delete_oidc_provider(arn)
    assert iam.oidc_provider_tags(arn) == {}
