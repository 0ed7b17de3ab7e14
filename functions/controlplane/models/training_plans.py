"""Training plans bought from the control plane: searching SageMaker's offerings and reserving one (plan → confirm,
the plan stating the upfront fee). Listing the account's plans is the catalog's (`models.catalog`)."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field, model_validator

from controlplane.models.common import Contract, View

# SearchTrainingPlanOfferings' InstanceType enum (botocore 1.44's sagemaker model; a unit test keeps them equal).
TRAINING_PLAN_INSTANCE_TYPES = (
    "ml.p4d.24xlarge",
    "ml.p4de.24xlarge",
    "ml.p5.4xlarge",
    "ml.p5.48xlarge",
    "ml.p5e.48xlarge",
    "ml.p5en.48xlarge",
    "ml.p6-b200.48xlarge",
    "ml.p6-b300.48xlarge",
    "ml.p6e-gb200.36xlarge",
    "ml.trn1.32xlarge",
    "ml.trn2.48xlarge",
)
TRAINING_PLAN_NAME_PATTERN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,63}$"
OFFERING_ID_PATTERN = r"^[a-z0-9\-]{1,256}$"
MAX_PLAN_HOURS = 87600


class OfferingSearch(Contract):
    """What capacity to look for: SearchTrainingPlanOfferings' instance type, count and window, for HyperPod."""

    instanceType: str
    instanceCount: int = Field(ge=1, le=256)
    durationHours: int = Field(ge=1, le=MAX_PLAN_HOURS)
    startTimeAfter: datetime | None = None
    endTimeBefore: datetime | None = None

    @model_validator(mode="after")
    def _offered(self) -> OfferingSearch:
        if self.instanceType not in TRAINING_PLAN_INSTANCE_TYPES:
            raise ValueError(
                f"Training plans do not offer {self.instanceType}; choose one of: "
                + ", ".join(TRAINING_PLAN_INSTANCE_TYPES)
            )
        if self.startTimeAfter and self.endTimeBefore and self.endTimeBefore <= self.startTimeAfter:
            raise ValueError("endTimeBefore must come after startTimeAfter")
        return self


class ReservedCapacityView(View):
    instanceType: str
    instanceCount: int
    availabilityZone: str
    startTime: datetime
    endTime: datetime


class TrainingPlanOfferingView(View):
    trainingPlanOfferingId: str
    upfrontFee: str = Field(description="The price to reserve it, paid up front, in currencyCode.")
    currencyCode: str
    durationHours: int
    reservedCapacity: list[ReservedCapacityView]


class TrainingPlanOfferingList(View):
    region: str
    search: OfferingSearch
    offerings: list[TrainingPlanOfferingView]


class CreateTrainingPlanRequest(Contract):
    """Reserve one offering: its id and the search it came from (searched again, to state its current price)."""

    trainingPlanName: str = Field(pattern=TRAINING_PLAN_NAME_PATTERN)
    trainingPlanOfferingId: str = Field(pattern=OFFERING_ID_PATTERN)
    search: OfferingSearch = Field(description="The search that found the offering.")


class TrainingPlanCreated(View):
    trainingPlanArn: str
    trainingPlanName: str
    upfrontFee: str
    currencyCode: str
    dryRun: bool = False
