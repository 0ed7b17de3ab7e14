"""Views of what a Region offers, read before asking the person for decisions (AZ, instance type, plan)."""

from __future__ import annotations

from controlplane.models.common import View


class RegionList(View):
    regions: list[str]


class AvailabilityZoneView(View):
    name: str
    zoneId: str


class AvailabilityZoneList(View):
    region: str
    availabilityZones: list[AvailabilityZoneView]


class InstanceTypeView(View):
    instanceType: str
    accelerator: str
    gpus: int
    efaInterfaces: int
    vcpus: int
    memoryGib: int
    deepHealthChecks: bool
    efaOnlyCapable: bool
    availabilityZones: list[str]


class InstanceTypeList(View):
    region: str
    availabilityZone: str | None = None
    instanceTypes: list[InstanceTypeView]


class TrainingPlanView(View):
    trainingPlanArn: str
    name: str
    status: str
    instanceType: str | None = None
    instanceCount: int
    availabilityZone: str | None = None


class TrainingPlanList(View):
    region: str
    trainingPlans: list[TrainingPlanView]
