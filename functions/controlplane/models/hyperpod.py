"""Instance groups: stage 4's first group and every group added later share one request model and one plan."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from controlplane.models.common import Contract, View

CapacityType = Literal["on-demand", "spot", "training-plan"]
NetworkInterfaceType = Literal["efa", "efa-only"]
TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
AZ_PATTERN = r"^[a-z]{2}(-[a-z]+)+-\d[a-z]$"
INSTANCE_TYPE_PATTERN = r"^ml\.[a-z0-9-]+\.[a-z0-9]+$"
TRAINING_PLAN_ARN_PATTERN = r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:\d{12}:training-plan/[a-zA-Z0-9-]{1,63}$"
GROUP_NAME_PATTERN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"
MAX_FIRST_GROUP_COUNT = 1000
MAX_GROUP_COUNT = 6758
LABEL_KEY_PATTERN = r"^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
RESERVED_LABEL_PREFIXES = ("sagemaker.amazonaws.com/", "kubernetes.io/", "k8s.io/")


class Taint(Contract):
    """A Kubernetes node taint."""

    key: str = Field(pattern=LABEL_KEY_PATTERN, description="Taint key.", examples=["team"])
    value: str | None = Field(default=None, max_length=63, description="Taint value.")
    effect: TaintEffect = Field(description="NoSchedule, PreferNoSchedule or NoExecute.")


def check_labels(labels: dict[str, str] | None) -> None:
    """Refuse label keys that are malformed or belong to Kubernetes or HyperPod."""
    for key, value in (labels or {}).items():
        if not re.match(LABEL_KEY_PATTERN, key):
            raise ValueError(f"label key '{key}' is not a valid Kubernetes label key")
        if key.startswith(RESERVED_LABEL_PREFIXES):
            raise ValueError(f"label key '{key}' uses a prefix reserved for Kubernetes or HyperPod")
        if len(value) > 63:
            raise ValueError(f"label '{key}' has a value longer than 63 characters")


class CreateHyperPodRequest(Contract):
    """Stage 4: the HyperPod cluster hp-cluster-<clusterTag> with its first (accelerated) instance group."""

    availabilityZone: str | None = Field(
        default=None,
        pattern=AZ_PATTERN,
        description="Omit for a training plan (its AZ is used).",
        examples=["us-west-2c"],
    )
    instanceType: str = Field(pattern=INSTANCE_TYPE_PATTERN, examples=["ml.g6.4xlarge"])
    instanceCount: int = Field(ge=1, le=MAX_FIRST_GROUP_COUNT, examples=[1])
    capacityType: CapacityType = Field(default="on-demand", description="on-demand, spot or training-plan.")
    trainingPlanArn: str | None = Field(
        default=None, pattern=TRAINING_PLAN_ARN_PATTERN, description="Required with capacityType training-plan."
    )
    ebsVolumeSizeGb: int = Field(default=500, ge=1, le=16384, description="Secondary EBS volume per instance.")
    instanceGroupName: str = Field(
        default="accelerated-worker", pattern=GROUP_NAME_PATTERN, description="Name of the first instance group."
    )
    deepHealthChecks: bool | None = Field(default=None, description="Default: on for GPU families that have them.")
    dedicatedSubnet: bool = Field(default=False, description="Give the group its own compute subnet.")
    minInstanceCount: int | None = Field(
        default=None,
        ge=0,
        le=MAX_GROUP_COUNT,
        description="InService once this many are up (at most instanceCount).",
    )
    networkInterface: NetworkInterfaceType | None = Field(
        default=None,
        description="efa-only: no IP networking; multi-EFA-card types only. Immutable.",
    )
    labels: dict[str, str] = Field(default_factory=dict, max_length=50, description="Node labels.")
    taints: list[Taint] = Field(
        default_factory=list,
        max_length=50,
        description="Node taints (not with deep health checks).",
    )

    @model_validator(mode="after")
    def _capacity_is_consistent(self) -> CreateHyperPodRequest:
        check_labels(self.labels)
        if self.minInstanceCount is not None and self.minInstanceCount > self.instanceCount:
            raise ValueError("minInstanceCount cannot exceed instanceCount")
        if self.taints and self.deepHealthChecks:
            raise ValueError("custom taints cannot be combined with deep health checks; drop one of them")
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
    """An instance group as a workflow creates it: every default and the AZ resolved."""

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
    minInstanceCount: int | None = None
    networkInterface: NetworkInterfaceType | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[Taint] = Field(default_factory=list)
