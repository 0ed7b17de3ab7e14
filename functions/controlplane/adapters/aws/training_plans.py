"""SageMaker's training-plan market: SearchTrainingPlanOfferings for HyperPod, and CreateTrainingPlan."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.core.ports.training_plans import PlanOffering, ReservedCapacity
from controlplane.models.errors import TrainingPlanExistsError, TrainingPlanOfferingUnavailableError
from controlplane.models.training_plans import OfferingSearch

HYPERPOD = "hyperpod-cluster"


class AwsTrainingPlanMarket:
    def search_offerings(self, region: str, search: OfferingSearch) -> list[PlanOffering]:
        request: dict[str, Any] = {
            "InstanceType": search.instanceType,
            "InstanceCount": search.instanceCount,
            "DurationHours": search.durationHours,
            "TargetResources": [HYPERPOD],
        }
        if search.startTimeAfter is not None:
            request["StartTimeAfter"] = search.startTimeAfter
        if search.endTimeBefore is not None:
            request["EndTimeBefore"] = search.endTimeBefore
        response = client("sagemaker", region).search_training_plan_offerings(**request)
        return [_offering(offering) for offering in response.get("TrainingPlanOfferings", [])]

    def create_training_plan(self, region: str, name: str, offering_id: str) -> str:
        try:
            response = client("sagemaker", region).create_training_plan(
                TrainingPlanName=name, TrainingPlanOfferingId=offering_id
            )
        except ClientError as error:
            code = error_code(error)
            if code == "ResourceNotFound":
                raise TrainingPlanOfferingUnavailableError(
                    f"Offering {offering_id} is no longer offered; search again (training_plan_search_offerings) "
                    "and choose a current offering.",
                    {"trainingPlanOfferingId": offering_id},
                ) from error
            if code == "ResourceInUse":
                raise TrainingPlanExistsError(
                    f"A training plan named {name} exists in {region}; choose another trainingPlanName."
                ) from error
            raise
        return str(response["TrainingPlanArn"])


def _offering(offering: dict[str, Any]) -> PlanOffering:
    return PlanOffering(
        offering_id=offering["TrainingPlanOfferingId"],
        upfront_fee=str(offering.get("UpfrontFee", "")),
        currency_code=str(offering.get("CurrencyCode", "")),
        duration_hours=int(offering.get("DurationHours") or 0),
        capacity=tuple(
            ReservedCapacity(
                instance_type=reserved["InstanceType"],
                instance_count=int(reserved["InstanceCount"]),
                availability_zone=reserved["AvailabilityZone"],
                start_time=reserved["StartTime"],
                end_time=reserved["EndTime"],
            )
            for reserved in offering.get("ReservedCapacityOfferings", [])
        ),
    )
