"""Creating requests run the pre-flight before any side effect: a failing check registers, reserves and starts
nothing; a plan lists every check."""

from __future__ import annotations

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.ports.quotas import RegionUsage
from controlplane.models.clusters import CreateEksClusterRequest
from controlplane.models.errors import PreflightFailedError
from controlplane.models.pipeline import CreateClusterRequest

ADMIN = Actor("alice", Role.ADMIN)
PIPELINE = {
    "clusterTag": "demo",
    "region": "us-west-2",
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 3},
    "storage": {},
}


def test_a_pipeline_beyond_the_cluster_usage_quota_registers_reserves_and_starts_nothing(
    lifecycle, quotas, registry, launcher
):
    quotas.set_quota("sagemaker", "ml.g6.4xlarge for cluster usage", 2)
    with pytest.raises(PreflightFailedError) as refused:
        lifecycle.create_cluster(CreateClusterRequest.model_validate(PIPELINE), ADMIN)
    assert "L-G64XL" in refused.value.message
    assert registry.find("demo") is None
    assert registry.reserved_cidrs("us-west-2") == {}
    assert launcher.started == []


def test_the_same_pipeline_starts_once_the_quota_is_raised(lifecycle, quotas, launcher):
    quotas.set_quota("sagemaker", "ml.g6.4xlarge for cluster usage", 4)
    lifecycle.create_cluster(CreateClusterRequest.model_validate(PIPELINE), ADMIN)
    assert len(launcher.started) == 1


def test_stage_one_is_refused_when_the_region_has_no_vpc_left(lifecycle, quotas, registry):
    quotas.usage = RegionUsage(vpcs=5, internet_gateways=1, elastic_ips=0, nat_gateways_by_zone={}, eks_clusters=0)
    request = CreateEksClusterRequest(clusterTag="demo", region="us-west-2")
    assert {c.check: c.status for c in lifecycle.plan_create_eks(request).checks}["quota: VPCs per Region"] == "fail"
    with pytest.raises(PreflightFailedError, match="L-F678F1CE"):
        lifecycle.create_eks(request, ADMIN)
    assert registry.find("demo") is None


def test_a_pipeline_plan_lists_the_network_and_group_checks(lifecycle):
    plan = lifecycle.plan_pipeline(CreateClusterRequest.model_validate(PIPELINE))
    names = [check.check for check in plan.checks]
    assert "quota: VPCs per Region" in names and "quota: ml.g6.4xlarge for cluster usage" in names
    assert any(name.startswith("addresses: new compute subnet") for name in names)
