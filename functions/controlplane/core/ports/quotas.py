"""Service Quotas and the live usage counted against them: HyperPod instances, VPC resources, EKS clusters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Quota:
    service_code: str
    quota_code: str
    name: str
    value: int
    adjustable: bool


@dataclass(frozen=True)
class RegionUsage:
    """What a Region holds now of what stage 1 creates (every resource of the account, ours or not)."""

    vpcs: int
    internet_gateways: int
    elastic_ips: int
    nat_gateways_by_zone: dict[str, int]
    eks_clusters: int


class QuotaGateway(Protocol):
    """One Region's quotas and usage; each method is one read per request, never one per instance."""

    def quotas(self, service_code: str, names: list[str]) -> dict[str, Quota]:
        """The applied quotas of a service named `names` (name → quota); a name the account does not report is
        left out. Raises `QuotaDataUnavailableError` when Service Quotas cannot be read."""

    def hyperpod_instances(self) -> dict[str, int]:
        """Instance type → instances across every HyperPod cluster of the account in the Region."""

    def region_usage(self) -> RegionUsage: ...

    def subnet_free_addresses(self, subnet_id: str) -> int | None:
        """The subnet's `AvailableIpAddressCount`; None when the subnet does not exist."""


class QuotaDataUnavailableError(Exception):
    """Service Quotas could not be read (no permission, throttled, not in this partition): checks warn."""
