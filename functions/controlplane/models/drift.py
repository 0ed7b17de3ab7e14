"""Drift and cost views: what a reconcile found where live state left what the control plane recorded, and what a
cluster's running instances cost."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from controlplane.models.common import View
from controlplane.models.operations import DESTRUCTIVE_DESCRIPTION, OperationKind

DriftValue = str | int | bool | None


class DriftFinding(View):
    """One managed field whose live value is not the recorded one."""

    path: str = Field(
        description="Field path of the difference, e.g. instanceGroups[workers].instanceCount.",
        examples=["instanceGroups[workers].instanceCount"],
    )
    recorded: DriftValue = Field(description="What the control plane recorded (null: nothing).")
    live: DriftValue = Field(description="What the live resource says (null: missing).")
    message: str = Field(description="The finding in one sentence, with how to bring it back.")


class StuckOperation(View):
    """An operation still RUNNING past the deadline of its kind."""

    operationId: str
    kind: OperationKind
    destructive: bool = Field(default=False, description=DESTRUCTIVE_DESCRIPTION)
    runningSince: datetime
    deadline: datetime = Field(description="When the operation should have finished at the latest.")
    resume: str = Field(description="The call that runs it again (finished stages pass through).")
    resumeTool: str = "operation_resume"


class DriftReport(View):
    """One reconcile of a cluster: its findings by field path and its stuck operations."""

    clusterTag: str
    checkedAt: datetime
    inSync: bool = Field(description="true when nothing drifted and no operation is stuck.")
    findings: list[DriftFinding] = Field(default_factory=list)
    stuckOperations: list[StuckOperation] = Field(default_factory=list)


CapacityKind = Literal["on-demand", "spot", "training-plan"]


class GroupCost(View):
    """One instance group's running instance-hours; a price only where on-demand capacity is priced."""

    instanceGroupName: str
    instanceType: str | None
    capacity: CapacityKind = Field(description="on-demand is priced; spot and training-plan capacity are not.")
    runningInstances: int
    instanceHours: float = Field(description="Hours since each running node's launch, summed.")
    onDemandHourlyPrice: float | None = Field(
        default=None, description="USD per instance-hour from the AWS Price List API (on-demand only)."
    )
    onDemandCost: float | None = Field(default=None, description="instanceHours x onDemandHourlyPrice (USD).")
    note: str | None = None


class CostView(View):
    """What the cluster's running instances have used, per group."""

    clusterTag: str
    region: str
    at: datetime
    currency: Literal["USD"] = "USD"
    groups: list[GroupCost]
    onDemandCost: float = Field(description="Sum of the priced groups' cost (USD); spot and training plans excluded.")
