"""/regions: what a Region offers, read before asking the person for an AZ, an instance type or a plan; and buying
a training plan (search its offerings, reserve one behind plan → confirm)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import ValidationError

from api.authorization import READ, Routes, admin
from api.context import plan_or_run
from api.routers.params import ConfirmationToken, RegionPath
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.catalog import AvailabilityZoneList, InstanceTypeList, RegionList, TrainingPlanList
from controlplane.models.clusters import Plan
from controlplane.models.errors import InvalidRequestError
from controlplane.models.hyperpod import AZ_PATTERN
from controlplane.models.training_plans import (
    MAX_PLAN_HOURS,
    CreateTrainingPlanRequest,
    OfferingSearch,
    TrainingPlanCreated,
    TrainingPlanOfferingList,
)

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


@router.get(
    "/regions/<region>/training-plan-offerings",
    allow=READ,
    operation_id="training_plan_search_offerings",
    summary="Search the training-plan offerings for reserved HyperPod capacity",
    description="Show them as choices with their price; training_plan_create reserves one.",
    tags=["catalog"],
)
def search_training_plan_offerings(
    region: RegionPath,
    instanceType: Annotated[str, Query(description="e.g. ml.p5.48xlarge")],
    instanceCount: Annotated[int, Query(ge=1, le=256)],
    durationHours: Annotated[int, Query(ge=1, le=MAX_PLAN_HOURS)],
    startTimeAfter: Annotated[datetime | None, Query()] = None,
    endTimeBefore: Annotated[datetime | None, Query()] = None,
) -> TrainingPlanOfferingList:
    try:
        search = OfferingSearch(
            instanceType=instanceType,
            instanceCount=instanceCount,
            durationHours=durationHours,
            startTimeAfter=startTimeAfter,
            endTimeBefore=endTimeBefore,
        )
    except ValidationError as error:
        reasons = (str(problem["msg"]).removeprefix("Value error, ") for problem in error.errors())
        raise InvalidRequestError("; ".join(reasons)) from error
    return wiring.training_plans().search(region, search)


@router.post(
    "/regions/<region>/training-plans",
    allow=admin("buy a training plan"),
    operation_id="training_plan_create",
    summary="Reserve a training-plan offering (costs its upfront fee)",
    description="Then hyperpod_add_instance_group with capacityType training-plan and the plan's ARN.",
    tags=["catalog"],
    responses={
        200: response_doc(Plan, "The plan: its price and token"),
        201: response_doc(TrainingPlanCreated, "Training plan bought"),
    },
)
def create_training_plan(
    region: RegionPath,
    request: CreateTrainingPlanRequest,
    confirmationToken: ConfirmationToken = None,
) -> Response[str]:
    service = wiring.training_plans()
    return plan_or_run(
        router,
        dry_run=not confirmationToken,
        scope=f"POST /regions/{region}/training-plans",
        body={**request.model_dump(mode="json"), "confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_create(region, request, caller),
        run=lambda caller: service.create(region, request, confirmationToken or "", caller),
        status=201,
    )
