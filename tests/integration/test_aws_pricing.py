"""The Price List adapter against the sandbox's Price List: the HyperPod product's on-demand price (not another
SageMaker usage's), cached so that a second read makes no call, and None for a type without a listed price."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto import mock_aws

from controlplane.adapters.aws import session
from controlplane.adapters.aws.pricing import AwsPriceGateway
from sandbox.aws.pricing import HOURLY_PRICES, PricingExtension
from sandbox.aws.stubber import SerializedStubber


@pytest.fixture
def prices(monkeypatch) -> Iterator[AwsPriceGateway]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    extension = PricingExtension()
    with mock_aws():
        SerializedStubber.install()
        extension.install()
        session._client.cache_clear()
        try:
            yield AwsPriceGateway()
        finally:
            extension.uninstall()
            SerializedStubber.uninstall()
            session._client.cache_clear()


def test_the_hyperpod_on_demand_price_is_read_once_and_cached(prices: AwsPriceGateway) -> None:
    mark = SerializedStubber.log.mark()

    first = prices.on_demand_hourly("us-west-2", "ml.g6.4xlarge")
    again = prices.on_demand_hourly("us-west-2", "ml.g6.4xlarge")

    assert first == again == HOURLY_PRICES["ml.g6.4xlarge"]
    assert SerializedStubber.log.since(mark) == ["pricing.GetProducts"]


def test_a_type_without_a_listed_price_has_none(prices: AwsPriceGateway) -> None:
    assert prices.on_demand_hourly("us-west-2", "ml.unknown.xlarge") is None
