"""The account and its Regions: AZs, instance-type offerings, training plans, existing VPCs."""

from __future__ import annotations

from controlplane.core.ports.account import AvailabilityZone, TrainingPlan

ACCOUNT_ID = "123456789012"


class InMemoryAccountGateway:
    """Every Region has AZs a-d; `offered` maps an EC2 instance type to the AZs that offer it (default: all)."""

    def __init__(
        self,
        vpcs: dict[str, str] | None = None,
        offered: dict[str, list[str]] | None = None,
        plans: list[TrainingPlan] | None = None,
    ) -> None:
        self.vpcs = dict(vpcs or {})
        self.offered = dict(offered or {})
        self.plans = list(plans or [])

    def account_id(self) -> str:
        return ACCOUNT_ID

    def known_regions(self) -> frozenset[str]:
        return frozenset({"us-east-1", "us-west-2", "eu-west-1"})

    def availability_zones(self, region: str) -> list[AvailabilityZone]:
        return [AvailabilityZone(f"{region}{letter}", f"usw2-az{i}") for i, letter in enumerate("abcd", 1)]

    def vpc_cidrs(self, region: str) -> dict[str, str]:
        return dict(self.vpcs)

    def offerings(self, region: str, ec2_instance_types: list[str]) -> dict[str, list[str]]:
        every = [zone.name for zone in self.availability_zones(region)]
        return {name: sorted(self.offered.get(name, every)) for name in ec2_instance_types}

    def training_plans(self, region: str) -> list[TrainingPlan]:
        return list(self.plans)

    def training_plan(self, region: str, arn: str) -> TrainingPlan | None:
        return next((plan for plan in self.plans if plan.arn == arn), None)
