"""The Regions a request may name are those of the control plane's own partition (its ARNs are built there too)."""

from __future__ import annotations

import boto3
import pytest

from controlplane.adapters.aws import session
from controlplane.adapters.aws.account import AwsAccountGateway


@pytest.mark.parametrize(
    ("home", "inside", "outside"),
    [("us-west-2", "eu-west-1", "cn-north-1"), ("cn-north-1", "cn-northwest-1", "us-east-1")],
)
def test_known_regions_are_those_of_the_home_region_s_partition(
    monkeypatch: pytest.MonkeyPatch, home: str, inside: str, outside: str
) -> None:
    monkeypatch.setattr(session, "_session", lambda: boto3.session.Session(region_name=home))
    regions = AwsAccountGateway().known_regions()
    assert {home, inside} <= regions
    assert outside not in regions
