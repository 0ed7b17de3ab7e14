"""The verification view (stage 6): is the cluster ready for work, and if not, what is missing."""

from __future__ import annotations

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
    clusterTag: str
    ready: bool
    stagesDone: list[str]
    missing: list[str]
    eksStatus: str | None = None
    hyperPodStatus: str | None = None
    nodes: list[NodeStatus]
    nodesReady: int
    gpusTotal: int
    gpusAllocatable: int
