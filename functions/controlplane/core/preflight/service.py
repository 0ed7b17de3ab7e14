"""One pre-flight for every creating or growing request: stage 1's network, a group's instances (stage 4, the
pipeline, an added or scaled group). Each request reads each quota and each usage once; the rules are `rules`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controlplane.core.naming import compute_subnet_key
from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.network import NetworkGateway
from controlplane.core.ports.persistence import Clock
from controlplane.core.ports.quotas import Quota, QuotaDataUnavailableError, QuotaGateway
from controlplane.core.preflight.rules import (
    EKS_CLUSTERS,
    ELASTIC_IPS,
    INTERNET_GATEWAYS_PER_REGION,
    NAT_GATEWAYS_PER_ZONE,
    NEW_COMPUTE_SUBNET_ADDRESSES,
    VPCS_PER_REGION,
    addresses_check,
    capacity_checks,
    cluster_usage_quota_name,
    quota_check,
    spot_check,
)
from controlplane.models.clusters import NetworkPlan
from controlplane.models.errors import UnknownRegionError
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.preflight import PreflightCheck, QuotaList, QuotaView

NETWORK_QUOTAS = (VPCS_PER_REGION, INTERNET_GATEWAYS_PER_REGION, NAT_GATEWAYS_PER_ZONE, ELASTIC_IPS, EKS_CLUSTERS)


@dataclass(frozen=True)
class Growth:
    """Instances a request adds to a group, and where they land: `subnet_id` is the existing subnet, None for a
    compute subnet the request creates."""

    instance_type: str
    instances: int
    subnet_id: str | None
    network_interface: str | None = None
    capacity_type: str = "on-demand"
    training_plan_arn: str | None = None
    dedicated_subnet: bool = False


class PreflightService:
    def __init__(
        self,
        quotas: Callable[[str], QuotaGateway],
        network: Callable[[str], NetworkGateway],
        account: AccountGateway,
        clock: Clock,
    ) -> None:
        self._quotas = quotas
        self._network = network
        self._account = account
        self._clock = clock

    def network_checks(self, region: str, network: NetworkPlan) -> list[PreflightCheck]:
        """Stage 1 creates a VPC, an internet gateway, a NAT gateway with its Elastic IP, and an EKS cluster."""
        gateway = self._quotas(region)
        quotas = self._read(gateway, NETWORK_QUOTAS)
        if quotas is None:
            return [_unavailable("VPCs, gateways, Elastic IPs and EKS clusters")]
        usage = gateway.region_usage()
        nat_zone = next((s.availabilityZone for s in network.subnets if s.role == "public"), "")
        return [
            quota_check(VPCS_PER_REGION[1], quotas.get(VPCS_PER_REGION), usage.vpcs, 1, region),
            quota_check(
                INTERNET_GATEWAYS_PER_REGION[1],
                quotas.get(INTERNET_GATEWAYS_PER_REGION),
                usage.internet_gateways,
                1,
                region,
            ),
            quota_check(
                f"{NAT_GATEWAYS_PER_ZONE[1]} ({nat_zone})",
                quotas.get(NAT_GATEWAYS_PER_ZONE),
                usage.nat_gateways_by_zone.get(nat_zone, 0),
                1,
                region,
            ),
            quota_check(ELASTIC_IPS[1], quotas.get(ELASTIC_IPS), usage.elastic_ips, 1, region),
            quota_check(f"EKS {EKS_CLUSTERS[1]}", quotas.get(EKS_CLUSTERS), usage.eks_clusters, 1, region),
        ]

    def unbuilt_network_checks(self, region: str, cluster_tag: str, network: NetworkPlan) -> list[PreflightCheck]:
        """Stage 1's checks for a create being resumed: none once the cluster's VPC exists (the usage counts what it
        built already, so the checks would count it twice)."""
        if self._network(region).find_vpc(cluster_tag) is not None:
            return []
        return self.network_checks(region, network)

    def group_checks(self, region: str, growth: Growth) -> list[PreflightCheck]:
        """The type's cluster-usage quota against every HyperPod instance of the account, the subnet's free
        addresses, and the training plan's capacity (spot is flagged interruptible)."""
        gateway = self._quotas(region)
        key = ("sagemaker", cluster_usage_quota_name(growth.instance_type))
        quotas = self._read(gateway, (key,))
        if quotas is None:
            checks = [_unavailable(key[1])]
        else:
            used = gateway.hyperpod_instances().get(growth.instance_type, 0)
            checks = [quota_check(key[1], quotas.get(key), used, growth.instances, region)]
        if growth.subnet_id is None:
            subnet, free = f"new compute subnet ({NEW_COMPUTE_SUBNET_ADDRESSES} free)", NEW_COMPUTE_SUBNET_ADDRESSES
        else:
            subnet, free = growth.subnet_id, gateway.subnet_free_addresses(growth.subnet_id) or 0
        checks.append(
            addresses_check(
                subnet,
                free,
                growth.instances,
                growth.instance_type,
                growth.network_interface,
                growth.dedicated_subnet,
            )
        )
        if growth.training_plan_arn:
            plan = self._account.training_plan(region, growth.training_plan_arn)
            if plan is not None:
                checks.extend(capacity_checks(plan, growth.instances, self._clock.now()))
        if growth.capacity_type == "spot":
            checks.append(spot_check())
        return checks

    def new_group(self, region: str, cluster_tag: str | None, plan: HyperPodPlan) -> Growth:
        """A group to create: it lands in the AZ's shared compute subnet when the cluster has one, else (a
        dedicated subnet, or a cluster without compute subnets yet) in a new /20."""
        subnet_id = None
        if cluster_tag is not None and not plan.dedicatedSubnet:
            found = self._network(region).find_subnets(cluster_tag).get(compute_subnet_key(plan.availabilityZone))
            subnet_id = found.subnet_id if found else None
        return Growth(
            instance_type=plan.instanceType,
            instances=plan.instanceCount,
            subnet_id=subnet_id,
            network_interface=plan.networkInterface,
            capacity_type=plan.capacityType,
            training_plan_arn=plan.trainingPlanArn,
            dedicated_subnet=plan.dedicatedSubnet,
        )

    def quotas(self, region: str, instance_type: str | None) -> QuotaList:
        """The quotas a cluster in the Region needs, with live usage: what agents read before asking a person
        for an instance count."""
        if region not in self._account.known_regions():
            raise UnknownRegionError(
                f"Unknown or unsupported region '{region}'. Use an AWS Region code where EKS is offered, such as "
                "us-west-2.",
                {"region": region},
            )
        gateway = self._quotas(region)
        wanted = [*NETWORK_QUOTAS]
        if instance_type:
            wanted.append(("sagemaker", cluster_usage_quota_name(instance_type)))
        quotas = self._read(gateway, tuple(wanted))
        if quotas is None:
            return QuotaList(
                region=region, instanceType=instance_type, quotas=[], warnings=["Service Quotas could not be read."]
            )
        usage = gateway.region_usage()
        used = {
            VPCS_PER_REGION: usage.vpcs,
            INTERNET_GATEWAYS_PER_REGION: usage.internet_gateways,
            NAT_GATEWAYS_PER_ZONE: max(usage.nat_gateways_by_zone.values(), default=0),
            ELASTIC_IPS: usage.elastic_ips,
            EKS_CLUSTERS: usage.eks_clusters,
        }
        if instance_type:
            used[("sagemaker", cluster_usage_quota_name(instance_type))] = gateway.hyperpod_instances().get(
                instance_type, 0
            )
        return QuotaList(
            region=region,
            instanceType=instance_type,
            quotas=[_view(quotas[key], used[key]) for key in wanted if key in quotas],
            warnings=[
                f"No quota named '{name}' in {service}." for service, name in wanted if (service, name) not in quotas
            ],
        )

    @staticmethod
    def _read(gateway: QuotaGateway, wanted: tuple[tuple[str, str], ...]) -> dict[tuple[str, str], Quota] | None:
        """Each service's quotas in one read; None when Service Quotas cannot be read."""
        found: dict[tuple[str, str], Quota] = {}
        try:
            for service in dict.fromkeys(service for service, _ in wanted):
                names = [name for code, name in wanted if code == service]
                found.update({(service, name): quota for name, quota in gateway.quotas(service, names).items()})
        except QuotaDataUnavailableError:
            return None
        return found


def _unavailable(what: str) -> PreflightCheck:
    return PreflightCheck(
        check=f"quota: {what}",
        status="warn",
        fix="Service Quotas could not be read; check the quotas in the Service Quotas console.",
    )


def _view(quota: Quota, used: int) -> QuotaView:
    return QuotaView(
        serviceCode=quota.service_code,
        quotaCode=quota.quota_code,
        name=quota.name,
        value=quota.value,
        used=used,
        available=max(0, quota.value - used),
        adjustable=quota.adjustable,
    )
