"""What a Region offers for HyperPod: Regions, AZs (name and ID), instance types per AZ, training plans."""

from __future__ import annotations

from controlplane.config import DependencyPins
from controlplane.core.dependencies.plan import supported_regions
from controlplane.core.ports.account import AccountGateway
from controlplane.models.catalog import (
    AvailabilityZoneList,
    AvailabilityZoneView,
    InstanceTypeList,
    InstanceTypeView,
    RegionList,
    TrainingPlanList,
    TrainingPlanView,
)
from controlplane.models.errors import InvalidRequestError, UnknownRegionError
from controlplane.models.instance_types import INSTANCE_TYPES, ec2_type


class CatalogService:
    def __init__(self, account: AccountGateway, pins: DependencyPins) -> None:
        self._account = account
        self._pins = pins

    def regions(self) -> RegionList:
        """The Regions a cluster can be built in: offered to this account, with a registry for every image."""
        return RegionList(regions=supported_regions(self._pins, self._account.known_regions()))

    def availability_zones(self, region: str) -> AvailabilityZoneList:
        self._known(region)
        zones = sorted(self._account.availability_zones(region), key=lambda zone: zone.name)
        return AvailabilityZoneList(
            region=region, availabilityZones=[AvailabilityZoneView(name=z.name, zoneId=z.zone_id) for z in zones]
        )

    def instance_types(self, region: str, availability_zone: str | None) -> InstanceTypeList:
        """The HyperPod instance types the control plane knows, with the AZs that offer each."""
        self._known(region)
        zones = {zone.name for zone in self._account.availability_zones(region)}
        if availability_zone is not None and availability_zone not in zones:
            raise InvalidRequestError(
                f"Availability Zone {availability_zone} is not in {region}; choose one of: {', '.join(sorted(zones))}."
            )
        offered = self._account.offerings(region, [ec2_type(name) for name in INSTANCE_TYPES])
        views = []
        for name, spec in INSTANCE_TYPES.items():
            where = offered.get(ec2_type(name), [])
            if availability_zone is not None and availability_zone not in where:
                continue
            if where:
                views.append(
                    InstanceTypeView(
                        instanceType=name,
                        accelerator=spec.accelerator,
                        gpus=spec.gpus,
                        efaInterfaces=spec.efa_interfaces,
                        vcpus=spec.vcpus,
                        memoryGib=spec.memory_gib,
                        deepHealthChecks=spec.deep_health_checks,
                        efaOnlyCapable=spec.efa_only_capable,
                        availabilityZones=where,
                    )
                )
        return InstanceTypeList(region=region, availabilityZone=availability_zone, instanceTypes=views)

    def training_plans(self, region: str) -> TrainingPlanList:
        self._known(region)
        return TrainingPlanList(
            region=region,
            trainingPlans=[
                TrainingPlanView(
                    trainingPlanArn=plan.arn,
                    name=plan.name,
                    status=plan.status,
                    instanceType=plan.instance_type,
                    instanceCount=plan.instance_count,
                    availabilityZone=plan.availability_zone,
                )
                for plan in self._account.training_plans(region)
            ],
        )

    def _known(self, region: str) -> None:
        if region not in self._account.known_regions():
            raise UnknownRegionError(f"Unknown or unsupported region '{region}'; GET /regions lists the Regions.")
