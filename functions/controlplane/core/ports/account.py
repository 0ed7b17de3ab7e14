"""The AWS account as the catalog sees it: Regions, zones, instance-type offerings, training plans."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class AvailabilityZone:
    name: str
    zone_id: str


@dataclass(frozen=True)
class TrainingPlan:
    arn: str
    name: str
    status: str
    instance_type: str | None
    instance_count: int
    availability_zone: str | None
    available_count: int | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None


class AccountGateway(Protocol):
    """Facts about the account and Region that requests are validated against."""

    def account_id(self) -> str: ...

    def offerings(self, region: str, ec2_instance_types: list[str]) -> dict[str, list[str]]:
        """EC2 instance type → the Region's AZs that offer it (HyperPod ml.<type> follows them)."""

    def training_plans(self, region: str) -> list[TrainingPlan]: ...

    def training_plan(self, region: str, arn: str) -> TrainingPlan | None: ...

    def known_regions(self) -> frozenset[str]: ...

    def availability_zones(self, region: str) -> list[AvailabilityZone]: ...

    def vpc_cidrs(self, region: str) -> dict[str, str]:
        """VPC id → CIDR for every VPC in the Region (all associated IPv4 blocks)."""
