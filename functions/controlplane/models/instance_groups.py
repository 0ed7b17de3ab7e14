"""Instance groups of a running HyperPod cluster: add, update (explicit diff), delete, and software updates."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from controlplane.models.clusters import PlannedAction
from controlplane.models.common import Contract, PageView, View
from controlplane.models.hyperpod import (
    GROUP_NAME_PATTERN,
    MAX_GROUP_COUNT,
    CapacityType,
    CreateHyperPodRequest,
    NetworkInterfaceType,
    Taint,
    check_labels,
)
from controlplane.models.operations import OperationView
from controlplane.models.preflight import PreflightCheck

FieldOutcome = Literal["unchanged", "enabled", "disabled", "updated"]
IMAGE_ID_PATTERN = r"^(ami-[0-9a-fA-F]{8,17}|default)$"


class AddInstanceGroupRequest(CreateHyperPodRequest):
    """A new group on an existing HyperPod cluster; the same fields as stage 4's first group."""

    instanceGroupName: str = Field(
        pattern=GROUP_NAME_PATTERN, description="Unique in the cluster.", examples=["spot-g6"]
    )


GroupCount = Annotated[int, Field(ge=0, le=MAX_GROUP_COUNT)]


class UpdateInstanceGroupRequest(Contract):
    """Explicit diff: only the fields present change; absent fields keep their live value.

    null is refused for every field (400): it would read as "clear" for some fields and "keep" for others.
    Leave a field out to keep it; send `{}` (labels) or `[]` (taints) to clear a set.
    """

    # Constraints sit on the non-null branch: on the union pydantic publishes them as `ge`/`le` and `maxLength`,
    # keywords JSON Schema does not have for numbers, objects and arrays (issue 30, finding 7).
    instanceCount: GroupCount | SkipJsonSchema[None] = None
    minInstanceCount: GroupCount | SkipJsonSchema[None] = None
    labels: Annotated[dict[str, str], Field(max_length=50)] | SkipJsonSchema[None] = Field(
        default=None, description="Replaces every node label ({} removes them)."
    )
    taints: Annotated[list[Taint], Field(max_length=50)] | SkipJsonSchema[None] = Field(
        default=None, description="Replaces every node taint ([] removes them)."
    )
    deepHealthChecks: bool | SkipJsonSchema[None] = Field(default=None, description="For nodes added later.")
    instanceType: str | SkipJsonSchema[None] = Field(default=None, description="Immutable: only the live value.")
    networkInterface: NetworkInterfaceType | SkipJsonSchema[None] = Field(
        default=None, description="Immutable: only the live value."
    )

    @field_validator("*", mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("null is not accepted; leave the field out to keep its live value")
        return value

    @model_validator(mode="after")
    def _something_to_change(self) -> UpdateInstanceGroupRequest:
        check_labels(self.labels)
        if not self.model_fields_set:
            raise ValueError("send at least one field to change (explicit diff: absent fields stay as they are)")
        return self


class InstanceGroupChange(View):
    """The fields a workflow changes on one group; None keeps the live value."""

    instanceGroupName: str
    instanceCount: int | None = None
    minInstanceCount: int | None = None
    labels: dict[str, str] | None = None
    taints: list[Taint] | None = None
    deepHealthChecks: bool | None = None


class InstanceGroupView(View):
    """One group as HyperPod reports it now."""

    instanceGroupName: str
    instanceType: str | None = None
    status: str
    currentCount: int
    targetCount: int
    minInstanceCount: int | None = None
    capacityType: CapacityType
    trainingPlanArn: str | None = None
    networkInterface: NetworkInterfaceType | None = None
    subnetIds: list[str] = Field(default_factory=list)
    deepHealthChecks: bool
    ebsVolumeSizeGb: int | None = None
    threadsPerCore: int | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[Taint] = Field(default_factory=list)
    imageReleaseVersion: str | None = None
    softwareUpdateStatus: str | None = None
    scalingOperations: int = 0


class InstanceGroupList(PageView):
    clusterTag: str
    hyperPodClusterName: str
    hyperPodStatus: str
    instanceGroups: list[InstanceGroupView]


class UpdateResult(View):
    """An explicit-diff update: what happens to each field sent, and the operation when something changes. A
    scale-down below the current count terminates nodes: it answers first with the plan and a confirmationToken."""

    changes: dict[str, FieldOutcome]
    dryRun: bool = False
    actions: list[PlannedAction] = Field(default_factory=list)
    confirmationToken: str | None = None
    expiresAt: datetime | None = None
    operationId: str | None = None
    operation: OperationView | None = None
    message: str
    checks: list[PreflightCheck] = Field(
        default_factory=list, description="Pre-flight checks of a scale-up (dry run); a fail refuses the update."
    )


class RollingPolicy(Contract):
    batchType: Literal["count", "percentage"] = Field(
        default="percentage", description="Batch size as a number of instances or a percentage of the group."
    )
    batchSize: int = Field(default=20, ge=1, le=100, description="Instances (or percent) updated at a time.")
    waitIntervalSeconds: int = Field(default=0, ge=0, le=3600, description="Pause between batches.")


class SoftwareUpdateRequest(Contract):
    """AMI patching of some or all groups with a rolling policy."""

    instanceGroups: list[str] | None = Field(
        default=None, min_length=1, max_length=100, description="Groups to patch (default: every group)."
    )
    imageId: str | None = Field(
        default=None,
        pattern=IMAGE_ID_PATTERN,
        description="Custom AMI (ami-...) or 'default' (the latest HyperPod AMI).",
    )
    rollingPolicy: RollingPolicy = Field(default_factory=RollingPolicy, description="How many nodes at a time.")


class SoftwareUpdatePlan(View):
    instanceGroups: list[str]
    imageId: str | None = None
    rollingPolicy: RollingPolicy
