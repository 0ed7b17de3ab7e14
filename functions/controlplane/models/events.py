"""HyperPod's EventBridge events as the control plane records them, and the per-cluster remediation policy.

`HyperPodEvent` is what the events entry point makes of one EventBridge event (the wire shape stays in
`adapters/aws/eventbridge.py`); `EventRecord` is what `GET /clusters/{clusterTag}/events` and a node's history list,
the policy's own actions included; `RemediationPolicy` is the body of `PUT /clusters/{clusterTag}/remediation-policy`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import ConfigDict, Field

from controlplane.models.common import Contract, PageView, View

EventKind = Literal["ClusterStateChange", "NodeHealth", "ClusterEvent", "Remediation"]
RemediationAction = Literal["notify", "reboot", "replace", "health-check"]
RemediationOutcome = Literal["started", "would-start", "notified", "left-to-hyperpod", "limited", "busy", "not-running"]
UNHEALTHY = "Unhealthy"
NO_REPAIR = "None"


class HyperPodEvent(View):
    """One HyperPod event: a cluster's status change, a node's health verdict or an operational (Error) event."""

    eventId: str = Field(description="HyperPod's EventId, else a key of the event's own facts (copies share it).")
    kind: EventKind
    time: datetime
    region: str
    clusterName: str
    clusterArn: str | None = None
    clusterStatus: str | None = None
    instanceId: str | None = None
    instanceGroup: str | None = None
    healthStatus: str | None = None
    repairAction: str | None = None
    level: str | None = None
    description: str | None = None

    @property
    def unhealthy(self) -> bool:
        return self.kind == "NodeHealth" and (self.healthStatus or "").lower() == UNHEALTHY.lower()


class EventRecord(View):
    """A recorded event, or an action the remediation policy took (or would have taken) on one."""

    eventId: str
    clusterTag: str
    kind: EventKind
    time: datetime = Field(description="When it happened (the event's time; the decision's time for Remediation).")
    clusterStatus: str | None = None
    instanceId: str | None = None
    instanceGroup: str | None = None
    healthStatus: str | None = None
    repairAction: str | None = Field(default=None, description="What HyperPod's own recovery does (None: nothing).")
    level: str | None = None
    description: str | None = None
    action: RemediationAction | None = Field(default=None, description="Remediation: the policy's action.")
    outcome: RemediationOutcome | None = Field(default=None, description="Remediation: what came of it.")
    operationId: str | None = Field(default=None, description="Remediation: the node operation it started.")


class EventList(PageView):
    clusterTag: str
    events: list[EventRecord] = Field(description="Newest first.")


class NodeHistory(PageView):
    clusterTag: str
    nodeId: str
    events: list[EventRecord] = Field(description="The node's health events and remediation actions, newest first.")


class RemediationPolicy(Contract):
    """What an unhealthy-node event does on this cluster once HyperPod's own recovery has not acted."""

    action: RemediationAction = Field(
        default="notify",
        description="notify only records; health-check runs deep health checks.",
    )
    maxActionsPerHour: int = Field(default=2, ge=1, le=100, description="Node operations per hour on the cluster.")
    maxActionsPerGroupPerHour: int = Field(
        default=1, ge=1, le=100, description="Node operations per hour in one instance group."
    )
    recordOnly: bool = Field(default=False, description="Record what it would do, do nothing.")


class RemediationPolicyView(RemediationPolicy, View):
    model_config = ConfigDict(extra="ignore", defer_build=True)

    clusterTag: str
    updatedBy: str | None = Field(default=None, description="Who set it; absent while the default (notify) holds.")
    updatedAt: datetime | None = None
