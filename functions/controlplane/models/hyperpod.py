"""Requests for stage 4: the HyperPod cluster and its first instance group."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from controlplane.models.common import Contract, View

CapacityType = Literal["on-demand", "spot", "training-plan"]
AZ_PATTERN = r"^[a-z]{2}(-[a-z]+)+-\d[a-z]$"
INSTANCE_TYPE_PATTERN = r"^ml\.[a-z0-9-]+\.[a-z0-9]+$"
TRAINING_PLAN_ARN_PATTERN = r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:\d{12}:training-plan/[a-zA-Z0-9-]{1,63}$"
GROUP_NAME_PATTERN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"
MAX_FIRST_GROUP_COUNT = 1000


class CreateHyperPodRequest(Contract):
    """Stage 4: the HyperPod cluster hp-cluster-<clusterTag> with its first (accelerated) instance group."""

    availabilityZone: str | None = Field(
        default=None,
        pattern=AZ_PATTERN,
        description="AZ of the instance group (e.g. us-west-2c). Omit for a training plan: its AZ is used.",
        examples=["us-west-2c"],
    )
    instanceType: str = Field(
        pattern=INSTANCE_TYPE_PATTERN, description="HyperPod instance type.", examples=["ml.g6.4xlarge"]
    )
    instanceCount: int = Field(ge=1, le=MAX_FIRST_GROUP_COUNT, description="Number of instances.", examples=[1])
    capacityType: CapacityType = Field(default="on-demand", description="on-demand, spot or training-plan.")
    trainingPlanArn: str | None = Field(
        default=None, pattern=TRAINING_PLAN_ARN_PATTERN, description="Required with capacityType training-plan."
    )
    ebsVolumeSizeGb: int = Field(default=500, ge=1, le=16384, description="Secondary EBS volume per instance.")
    instanceGroupName: str = Field(
        default="accelerated-worker", pattern=GROUP_NAME_PATTERN, description="Name of the first instance group."
    )
    deepHealthChecks: bool | None = Field(
        default=None, description="Run deep health checks on new nodes. Default: on for GPU families that support them."
    )
    dedicatedSubnet: bool = Field(default=False, description="Give the group its own compute subnet.")

    @model_validator(mode="after")
    def _capacity_is_consistent(self) -> CreateHyperPodRequest:
        if self.capacityType == "spot" and self.trainingPlanArn:
            raise ValueError("spot capacity and a training plan cannot be combined; choose one capacityType")
        if self.capacityType == "training-plan" and not self.trainingPlanArn:
            raise ValueError("capacityType training-plan needs trainingPlanArn")
        if self.trainingPlanArn and self.capacityType != "training-plan":
            raise ValueError("trainingPlanArn is only used with capacityType training-plan")
        if self.capacityType != "training-plan" and not self.availabilityZone:
            raise ValueError("availabilityZone is required (only a training plan brings its own AZ)")
        return self


class HyperPodPlan(View):
    """The first instance group as the workflow creates it: every default and the AZ resolved."""

    availabilityZone: str
    instanceType: str
    instanceCount: int
    capacityType: CapacityType
    trainingPlanArn: str | None = None
    ebsVolumeSizeGb: int
    instanceGroupName: str
    deepHealthChecks: bool
    dedicatedSubnet: bool
    threadsPerCore: int
