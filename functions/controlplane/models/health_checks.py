"""On-demand deep health checks (StartClusterHealthCheck): the request, and what the check found on each node."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from controlplane.models.common import Contract
from controlplane.models.hyperpod import GROUP_NAME_PATTERN
from controlplane.models.nodes import NodeId

# botocore's DeepHealthCheckType.
DeepHealthCheck = Literal["InstanceStress", "InstanceConnectivity", "MultiNodeTrainingValidation"]
DEFAULT_CHECKS: tuple[DeepHealthCheck, ...] = ("InstanceStress", "InstanceConnectivity")
# What became of a checked node: it passed; HyperPod rebooted it, or replaced it with new hardware, after it failed.
HealthCheckOutcome = Literal["healthy", "rebooted", "replaced"]
# StartClusterHealthCheck takes up to 500 instance ids per group; one request of ours stays well inside.
MAX_CHECKED_NODES = 100
GroupName = Annotated[str, StringConstraints(pattern=GROUP_NAME_PATTERN)]


class StartHealthCheckRequest(Contract):
    """Nodes to check, named one by one or by their instance groups (every node of each), and the checks to run."""

    nodeIds: list[NodeId] = Field(default=[], max_length=MAX_CHECKED_NODES)
    instanceGroups: list[GroupName] = Field(default=[], max_length=20, description="Every node of each.")
    checks: list[DeepHealthCheck] = Field(
        default=list(DEFAULT_CHECKS),
        min_length=1,
        max_length=3,
        description="InstanceStress: GPU; InstanceConnectivity: EFA.",
    )
    confirmationToken: str | None = None

    @model_validator(mode="after")
    def _names_nodes(self) -> StartHealthCheckRequest:
        if not self.nodeIds and not self.instanceGroups:
            raise ValueError("Name the nodes to check: nodeIds, instanceGroups, or both.")
        return self
