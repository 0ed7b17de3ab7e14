"""/regions: what a Region offers, read before asking the person for an AZ, an instance type or a plan."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from api.authorization import READ, Routes
from api.routers.params import RegionPath
from controlplane import wiring
from controlplane.models.catalog import AvailabilityZoneList, InstanceTypeList, RegionList, TrainingPlanList
from controlplane.models.hyperpod import AZ_PATTERN

router = Routes()


@router.get(
    "/regions",
    allow=READ,
    operation_id="region_list",
    summary="List the Regions a cluster can be created in",
    tags=["catalog"],
)
def list_regions() -> RegionList:
    return wiring.catalog().regions()


@router.get(
    "/regions/<region>/availability-zones",
    allow=READ,
    operation_id="cluster_get_availability_zones",
    summary="List a Region's Availability Zones (name and zone ID)",
    description="Read before asking the person for an AZ (hyperpod_create, hyperpod_add_instance_group): offer only "
    "these names. Zone IDs identify the same "
    "physical zone across accounts (training plans and capacity reservations use them).",
    tags=["catalog"],
)
def list_availability_zones(region: RegionPath) -> AvailabilityZoneList:
    return wiring.catalog().availability_zones(region)


@router.get(
    "/regions/<region>/instance-types",
    allow=READ,
    operation_id="cluster_get_available_instances",
    summary="List HyperPod instance types offered in a Region or one AZ",
    description="Each type with its accelerator, GPU and EFA counts, whether deep health checks and EFA-only "
    "interfaces apply, and the AZs that offer it. Read before asking the person for an instance type "
    "(hyperpod_create, hyperpod_add_instance_group).",
    tags=["catalog"],
)
def list_instance_types(
    region: RegionPath,
    availabilityZone: Annotated[str | None, Query(pattern=AZ_PATTERN, description="Only this AZ.")] = None,
) -> InstanceTypeList:
    return wiring.catalog().instance_types(region, availabilityZone)


@router.get(
    "/regions/<region>/training-plans",
    allow=READ,
    operation_id="training_plan_list",
    summary="List a Region's SageMaker training plans",
    description="Reserved capacity: instance type, count and AZ of each plan. A plan's AZ takes precedence over "
    "the one the person names.",
    tags=["catalog"],
)
def list_training_plans(region: RegionPath) -> TrainingPlanList:
    return wiring.catalog().training_plans(region)
