"""Service Quotas and live usage in one Region: quotas by (service, name), usage and subnets set by the test;
`reads` records each call so a test can say the pre-flight read each quota once."""

from __future__ import annotations

from controlplane.core.ports.quotas import Quota, QuotaDataUnavailableError, RegionUsage

NEW_ACCOUNT = [
    Quota("vpc", "L-F678F1CE", "VPCs per Region", 5, True),
    Quota("vpc", "L-A4707A72", "Internet gateways per Region", 5, True),
    Quota("vpc", "L-FE5A380F", "NAT gateways per Availability Zone", 5, True),
    Quota("ec2", "L-0263D0A3", "EC2-VPC Elastic IPs", 5, True),
    Quota("eks", "L-1194D53C", "Clusters", 100, True),
    Quota("sagemaker", "L-G64XL", "ml.g6.4xlarge for cluster usage", 10, True),
    Quota("sagemaker", "L-P548XL", "ml.p5.48xlarge for cluster usage", 2, True),
]


class InMemoryQuotaGateway:
    def __init__(self, quotas: list[Quota] | None = None) -> None:
        self.quotas_by_name = {(q.service_code, q.name): q for q in (NEW_ACCOUNT if quotas is None else quotas)}
        self.instances: dict[str, int] = {}
        self.usage = RegionUsage(vpcs=1, internet_gateways=1, elastic_ips=0, nat_gateways_by_zone={}, eks_clusters=0)
        self.free_addresses: dict[str, int] = {}
        self.unavailable = False
        self.reads: list[str] = []

    def set_quota(self, service_code: str, name: str, value: int) -> None:
        quota = self.quotas_by_name[(service_code, name)]
        self.quotas_by_name[(service_code, name)] = Quota(service_code, quota.quota_code, name, value, quota.adjustable)

    def quotas(self, service_code: str, names: list[str]) -> dict[str, Quota]:
        self.reads.append(f"quotas:{service_code}")
        if self.unavailable:
            raise QuotaDataUnavailableError("AccessDenied")
        return {
            name: self.quotas_by_name[(service_code, name)]
            for name in names
            if (service_code, name) in self.quotas_by_name
        }

    def hyperpod_instances(self) -> dict[str, int]:
        self.reads.append("hyperpod_instances")
        return dict(self.instances)

    def region_usage(self) -> RegionUsage:
        self.reads.append("region_usage")
        return self.usage

    def subnet_free_addresses(self, subnet_id: str) -> int | None:
        self.reads.append(f"subnet:{subnet_id}")
        return self.free_addresses.get(subnet_id)
