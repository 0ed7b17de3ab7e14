"""HyperPod nodes: what the cluster runs now, and reboot / replace / delete in batches (each an operation)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StringConstraints

from controlplane.models.common import NODE_ID_PATTERN, Contract, PageView, View, instance_id
from controlplane.models.hyperpod import CapacityType

# Every node action needs the confirmation token of a prior plan: even a reboot stops the node's pods.
NodeAction = Literal["reboot", "replace", "delete"]
# The node actions that destroy what a node holds (its volumes, its place in the group): the admins'.
DESTRUCTIVE_ACTIONS = {"replace", "delete"}
# Batch limits of BatchReboot/ReplaceClusterNodes (25) and BatchDeleteClusterNodes (99).
MAX_NODES_PER_REQUEST = 25
# Either name of a node, validated as the instance id every service takes.
NodeId = Annotated[str, StringConstraints(pattern=NODE_ID_PATTERN), AfterValidator(instance_id)]


class NodeView(View):
    nodeId: str
    instanceGroup: str
    instanceType: str
    status: str
    statusMessage: str | None = None
    health: str | None = Field(default=None, description="HyperPod's node-health-status label.")
    ready: bool | None = Field(default=None, description="Kubernetes Ready condition (None: not registered yet).")
    schedulable: bool | None = None
    capacityType: CapacityType
    availabilityZone: str | None = None
    launchTime: datetime | None = None
    imageReleaseVersion: str | None = None


class NodeList(PageView):
    clusterTag: str
    nodes: list[NodeView]


class NodeBatchRequest(Contract):
    """Several nodes at once, with the confirmation token of a prior plan."""

    action: NodeAction = Field(description="replace: new hardware, volumes destroyed.")
    nodeIds: list[NodeId] = Field(
        min_length=1,
        max_length=MAX_NODES_PER_REQUEST,
        description="EC2 ids (GET /clusters/{clusterTag}/nodes lists them).",
    )
    confirmationToken: str | None = None


class NodeTarget(View):
    """A node a node action was accepted for, with the group it was in (where its replacement appears)."""

    nodeId: str
    instanceGroup: str
