"""The sandbox's Service Quotas: a new account's defaults per Region, adjustable one quota at a time."""

from __future__ import annotations

import pytest

from sandbox.aws.servicequotas import CLUSTER_USAGE, HIGH_END_CLUSTER_USAGE, QuotaTable


def test_every_region_starts_at_the_defaults_and_a_change_stays_in_its_region():
    table = QuotaTable()
    table.set("us-west-2", "sagemaker", "ml.g6.4xlarge for cluster usage", 2)
    values = {q.name: q.value for q in table.quotas("us-west-2", "sagemaker")}
    assert values["ml.g6.4xlarge for cluster usage"] == 2
    assert values["ml.p5.48xlarge for cluster usage"] == HIGH_END_CLUSTER_USAGE
    other = {q.name: q.value for q in table.quotas("eu-west-1", "sagemaker")}
    assert other["ml.g6.4xlarge for cluster usage"] == CLUSTER_USAGE
    assert {q.name for q in table.quotas("us-west-2", "vpc")} == {
        "VPCs per Region",
        "Internet gateways per Region",
        "NAT gateways per Availability Zone",
    }


def test_an_unknown_quota_is_refused():
    with pytest.raises(KeyError):
        QuotaTable().set("us-west-2", "sagemaker", "ml.zz.large for cluster usage", 1)


def test_a_new_account_has_five_vpcs_gateways_and_elastic_ips_per_region_and_a_hundred_eks_clusters():
    table = QuotaTable()
    values = {q.name: q.value for service in ("vpc", "ec2", "eks") for q in table.quotas("us-west-2", service)}
    assert values == {
        "VPCs per Region": 5,
        "Internet gateways per Region": 5,
        "NAT gateways per Availability Zone": 5,
        "EC2-VPC Elastic IPs": 5,
        "Clusters": 100,
    }
