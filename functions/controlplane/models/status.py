"""The verification view (stage 6): is the cluster ready for work, and if not, what is missing."""

from __future__ import annotations

from pydantic import Field

from controlplane.models.common import View

HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"
GROUP_LABEL = "sagemaker.amazonaws.com/instance-group-name"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
GPU_RESOURCE = "nvidia.com/gpu"


class NodeStatus(View):
    name: str
    instanceGroup: str | None = None
    instanceType: str | None = None
    availabilityZone: str | None = None
    ready: bool
    schedulable: bool
    health: str | None = None
    gpus: int
    allocatableGpus: int


class ClusterStatusView(View):
    """Counts first, then at most 20 nodes, those not Ready and schedulable first."""

    clusterTag: str
    ready: bool
    stagesDone: list[str]
    missing: list[str]
    eksStatus: str | None = None
    hyperPodStatus: str | None = None
    nodesTotal: int = Field(description="Kubernetes nodes in the cluster.")
    nodesReady: int = Field(description="Nodes Ready and schedulable.")
    nodesNotReady: int = Field(description="Nodes not Ready or not schedulable.")
    gpusTotal: int
    gpusAllocatable: int
    nodes: list[NodeStatus] = Field(
        description="At most 20 nodes, those not Ready and schedulable first; GET /clusters/{clusterTag}/nodes pages "
        "through every node."
    )
