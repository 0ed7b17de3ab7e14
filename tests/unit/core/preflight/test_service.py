"""The pre-flight service on fakes: one read per quota and per usage, the group's subnet, warnings never block."""

from __future__ import annotations

from controlplane.core.ports.quotas import RegionUsage
from controlplane.core.preflight.service import Growth, PreflightService
from controlplane.models.clusters import NetworkPlan, SubnetPlan
from controlplane.models.hyperpod import HyperPodPlan
from tests.fakes.account import InMemoryAccountGateway
from tests.fakes.network import InMemoryNetworkGateway
from tests.fakes.persistence import FakeClock
from tests.fakes.quotas import InMemoryQuotaGateway

REGION = "us-west-2"
NETWORK = NetworkPlan(
    vpcCidr="10.1.0.0/16",
    cidrSource="automatic",
    subnets=[SubnetPlan(role="public", index=0, cidr="10.1.10.0/24", availabilityZone="us-west-2a")],
)


def service(quotas: InMemoryQuotaGateway, network: InMemoryNetworkGateway | None = None) -> PreflightService:
    net = network or InMemoryNetworkGateway()
    return PreflightService(lambda region: quotas, lambda region: net, InMemoryAccountGateway(), FakeClock())


def group(count: int, dedicated: bool = False) -> HyperPodPlan:
    return HyperPodPlan(
        availabilityZone="us-west-2c",
        instanceType="ml.g6.4xlarge",
        instanceCount=count,
        capacityType="on-demand",
        ebsVolumeSizeGb=500,
        instanceGroupName="accelerated",
        deepHealthChecks=False,
        dedicatedSubnet=dedicated,
        threadsPerCore=1,
    )


def test_a_group_reads_its_quota_and_the_account_usage_once_whatever_the_count():
    quotas = InMemoryQuotaGateway()
    checks = service(quotas).group_checks(REGION, Growth("ml.g6.4xlarge", 500, None))
    assert quotas.reads == ["quotas:sagemaker", "hyperpod_instances"]
    assert {c.check: c.status for c in checks}["quota: ml.g6.4xlarge for cluster usage"] == "fail"


def test_stage_one_counts_the_nat_gateways_of_the_zone_it_uses():
    quotas = InMemoryQuotaGateway()
    quotas.usage = RegionUsage(
        vpcs=2, internet_gateways=2, elastic_ips=1, nat_gateways_by_zone={"us-west-2a": 5}, eks_clusters=1
    )
    checks = {c.check: c for c in service(quotas).network_checks(REGION, NETWORK)}
    nat = checks["quota: NAT gateways per Availability Zone (us-west-2a)"]
    assert (nat.status, nat.used, nat.need) == ("fail", 5, 1)
    assert checks["quota: VPCs per Region"].status == "pass"
    assert quotas.reads.count("quotas:vpc") == 1


def test_unreadable_quotas_warn_and_do_not_block():
    quotas = InMemoryQuotaGateway()
    quotas.unavailable = True
    checks = service(quotas).network_checks(REGION, NETWORK) + service(quotas).group_checks(
        REGION, Growth("ml.g6.4xlarge", 1, None)
    )
    assert {c.status for c in checks} == {"warn", "pass"}


def test_a_new_group_lands_in_the_zones_shared_compute_subnet_unless_dedicated():
    network = InMemoryNetworkGateway()
    vpc = network.create_vpc("demo", "10.1.0.0/16")
    subnet = network.create_subnet("demo", vpc.vpc_id, "compute-us-west-2c", "10.1.64.0/24", "us-west-2c", False)
    preflight = service(InMemoryQuotaGateway(), network)
    assert preflight.new_group(REGION, "demo", group(600)).subnet_id == subnet.subnet_id
    assert preflight.new_group(REGION, "demo", group(600, dedicated=True)).subnet_id is None
    assert preflight.new_group(REGION, None, group(600)).subnet_id is None


def test_the_quotas_view_gives_value_usage_and_what_is_left():
    quotas = InMemoryQuotaGateway()
    quotas.instances = {"ml.g6.4xlarge": 3}
    view = service(quotas).quotas(REGION, "ml.g6.4xlarge")
    usage = next(q for q in view.quotas if q.name == "ml.g6.4xlarge for cluster usage")
    assert (usage.value, usage.used, usage.available) == (10, 3, 7)
    assert service(quotas).quotas(REGION, "ml.zz.large").warnings == [
        "No quota named 'ml.zz.large for cluster usage' in sagemaker."
    ]
