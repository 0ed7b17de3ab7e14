"""The MLflow tracking-server gateway on moto with the sandbox's MLflow extension (moto has no MLflow): the
Region's servers listed with their ARN, one found by name, an unknown name is None."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto import mock_aws

from controlplane.adapters.aws import session
from controlplane.adapters.aws.mlflow import AwsMlflowGateway
from sandbox.aws.mlflow import SANDBOX_TRACKING_SERVER, MlflowExtension

REGION = "us-west-2"
ACCOUNT = "123456789012"
ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:mlflow-tracking-server/{SANDBOX_TRACKING_SERVER}"


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch) -> Iterator[AwsMlflowGateway]:
    monkeypatch.setenv("MOTO_ACCOUNT_ID", ACCOUNT)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        extension = MlflowExtension()
        extension.install()
        session._client.cache_clear()
        try:
            yield AwsMlflowGateway(REGION)
        finally:
            extension.uninstall()
            session._client.cache_clear()


def test_the_regions_tracking_servers_are_listed_with_their_arn(gateway: AwsMlflowGateway) -> None:
    page = gateway.tracking_server_page(10)

    assert [(server.name, server.arn, server.active) for server in page.items] == [(SANDBOX_TRACKING_SERVER, ARN, True)]
    assert page.next_token is None
    assert page.items[0].created_at is not None


def test_a_tracking_server_is_found_by_name_and_an_unknown_one_is_none(gateway: AwsMlflowGateway) -> None:
    found = gateway.find_tracking_server(SANDBOX_TRACKING_SERVER)

    assert found is not None and found.arn == ARN
    assert gateway.find_tracking_server("no-such-server") is None
