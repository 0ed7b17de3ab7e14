"""Service Quotas and the live usage counted against them, read from the account (every resource counts,
the control plane's or not).

A quota is found by name: its code is read from ListServiceQuotas once per process (codes do not change) and its
value with GetServiceQuota on each request, so a raised quota counts at once.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.core.ports.quotas import Quota, QuotaDataUnavailableError, RegionUsage

# (Region, service code) → quota name → quota code, filled from ListServiceQuotas.
_CODES: dict[tuple[str, str], dict[str, str]] = {}
_CODES_LOCK = threading.Lock()
LIVE_NAT_STATES = ["pending", "available"]


class AwsQuotaGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def quotas(self, service_code: str, names: list[str]) -> dict[str, Quota]:
        quotas = client("service-quotas", self._region)
        try:
            codes = self._codes(service_code, names)
            found = {}
            for name in names:
                if name in codes:
                    found[name] = _quota(
                        quotas.get_service_quota(ServiceCode=service_code, QuotaCode=codes[name])["Quota"]
                    )
            return found
        except (ClientError, BotoCoreError) as error:
            raise QuotaDataUnavailableError(f"{service_code}: {error_code(error) or error}") from error

    def hyperpod_instances(self) -> dict[str, int]:
        sagemaker = client("sagemaker", self._region)
        counts: Counter[str] = Counter()
        for page in sagemaker.get_paginator("list_clusters").paginate():
            for summary in page["ClusterSummaries"]:
                try:
                    cluster = sagemaker.describe_cluster(ClusterName=summary["ClusterName"])
                except ClientError as error:
                    if error_code(error) == "ResourceNotFound":
                        continue
                    raise
                for group in cluster.get("InstanceGroups", []):
                    counts[group["InstanceType"]] += max(group.get("CurrentCount", 0), group.get("TargetCount", 0))
        return dict(counts)

    def region_usage(self) -> RegionUsage:
        ec2 = client("ec2", self._region)
        vpcs = sum(len(page["Vpcs"]) for page in ec2.get_paginator("describe_vpcs").paginate())
        gateways = sum(
            len(page["InternetGateways"]) for page in ec2.get_paginator("describe_internet_gateways").paginate()
        )
        addresses = len(ec2.describe_addresses(Filters=[{"Name": "domain", "Values": ["vpc"]}])["Addresses"])
        nat_subnets = [
            gateway["SubnetId"]
            for page in ec2.get_paginator("describe_nat_gateways").paginate(
                Filters=[{"Name": "state", "Values": LIVE_NAT_STATES}]
            )
            for gateway in page["NatGateways"]
        ]
        zones: Counter[str] = Counter()
        if nat_subnets:
            zone_of = {
                subnet["SubnetId"]: subnet["AvailabilityZone"]
                for subnet in ec2.describe_subnets(SubnetIds=sorted(set(nat_subnets)))["Subnets"]
            }
            zones.update(zone_of.get(subnet, "") for subnet in nat_subnets)
        clusters = sum(
            len(page["clusters"]) for page in client("eks", self._region).get_paginator("list_clusters").paginate()
        )
        return RegionUsage(
            vpcs=vpcs,
            internet_gateways=gateways,
            elastic_ips=addresses,
            nat_gateways_by_zone=dict(zones),
            eks_clusters=clusters,
        )

    def subnet_free_addresses(self, subnet_id: str) -> int | None:
        try:
            subnets = client("ec2", self._region).describe_subnets(SubnetIds=[subnet_id])["Subnets"]
        except ClientError as error:
            if error_code(error) == "InvalidSubnetID.NotFound":
                return None
            raise
        return int(subnets[0]["AvailableIpAddressCount"]) if subnets else None

    def _codes(self, service_code: str, names: list[str]) -> dict[str, str]:
        """Quota name → code; listed again only when a name is not known yet."""
        key = (self._region, service_code)
        with _CODES_LOCK:
            known = _CODES.get(key)
        if known is not None and all(name in known for name in names):
            return known
        listed: dict[str, str] = {}
        paginator = client("service-quotas", self._region).get_paginator("list_service_quotas")
        for page in paginator.paginate(ServiceCode=service_code):
            listed.update({quota["QuotaName"]: quota["QuotaCode"] for quota in page["Quotas"]})
        with _CODES_LOCK:
            _CODES[key] = listed
        return listed


def _quota(quota: dict[str, Any]) -> Quota:
    return Quota(
        service_code=quota["ServiceCode"],
        quota_code=quota["QuotaCode"],
        name=quota["QuotaName"],
        value=int(quota["Value"]),
        adjustable=bool(quota.get("Adjustable", False)),
    )
