"""The monitoring views: a cluster's overview (aggregated on the server, every list in it capped and counted) and
a page of its pods. What is counted and how is `core/monitoring`; this module is the JSON the faces read."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from controlplane.models.common import PageView, View

# The lists an overview carries are capped so that it stays small at any cluster size; each has a total beside it.
OVERVIEW_NODES = 100
OVERVIEW_PENDING_PODS = 50
OVERVIEW_EVENTS = 50
# Kubernetes' pod phases, the filter of GET /clusters/{clusterTag}/pods.
PodPhase = Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"]
# A node's state as Kubernetes sees it: Ready and schedulable, Ready but cordoned or tainted NoSchedule, not Ready.
NodeState = Literal["Ready", "Cordoned", "NotReady"]
NO_HEALTH_LABEL = "Unknown"
# The HyperPod node-health-status of a node fit for work.
HEALTHY = "Schedulable"


class GpuCounts(View):
    total: int = Field(description="nvidia.com/gpu capacity.")
    allocatable: int = Field(description="nvidia.com/gpu allocatable.")
    used: int = Field(description="GPUs requested by the pods bound to the nodes that have not finished.")
    available: int = Field(description="Allocatable minus used, on nodes Ready and schedulable.")


class NodeGpus(View):
    name: str
    instanceGroup: str | None = None
    state: NodeState
    health: str = Field(description=f"The HyperPod node-health-status label ({NO_HEALTH_LABEL} when absent).")
    gpus: GpuCounts


class GroupOverview(View):
    name: str
    instanceType: str | None = None
    status: str | None = Field(default=None, description="The group's status as HyperPod reports it.")
    currentCount: int | None = Field(default=None, description="Instances HyperPod reports running.")
    targetCount: int | None = Field(default=None, description="Instances HyperPod is asked for.")
    nodes: int = Field(description="Kubernetes nodes of the group.")
    nodesReady: int
    gpus: GpuCounts


class PendingPod(View):
    namespace: str
    name: str
    reason: str = Field(description="Why it waits: the scheduler's reason (Unschedulable...) or a container's.")
    message: str | None = None
    createdAt: str | None = None


class WarningEvent(View):
    """A Kubernetes Warning event, or a HyperPod cluster event of level Warn or Error (reason is its level)."""

    source: Literal["hyperpod", "kubernetes"] = "kubernetes"
    namespace: str | None = None
    object: str = Field(description="Kind/name of the object the event is about.")
    reason: str | None = None
    message: str | None = None
    at: str | None = None
    count: int = 1
    instanceGroup: str | None = None
    nodeId: str | None = None
    operationId: str | None = None


class ObservabilityLinks(View):
    """Where the HyperPod observability add-on's metrics are: the cluster's Amazon Managed Service for Prometheus
    workspace, which the observability feature creates. Grafana is the person's to bring (none is created): a
    Prometheus data source on `prometheusEndpoint`. Present only while the add-on is installed."""

    addonStatus: str
    prometheusWorkspace: str | None = Field(default=None, description="The workspace the add-on writes to.")
    prometheusEndpoint: str | None = Field(
        default=None, description="The workspace's endpoint: a Grafana Prometheus data source URL (SigV4, service aps)."
    )
    grafana: str = Field(description="Amazon Managed Grafana in the Region's console, if you bring Grafana there.")
    prometheus: str = Field(
        description="The workspace in the Amazon Managed Service for Prometheus console (the Region's list when the "
        "add-on names none)."
    )
    hyperPodConsole: str = Field(description="The HyperPod cluster's page in the SageMaker console.")
    bringYourOwn: str = Field(description="What you add yourself: Grafana, with the workspace as its data source.")


class ClusterOverview(View):
    """Counts over every node and pod, and capped lists: nodes by GPU (those not Ready first, then the fullest),
    pending pods (oldest first) and warnings of Kubernetes and HyperPod merged (newest first)."""

    clusterTag: str
    hyperPodStatus: str | None = None
    nodesTotal: int
    nodesByState: dict[str, int] = Field(description="Ready, Cordoned (Ready but not schedulable), NotReady.")
    nodesByHealth: dict[str, int] = Field(description="By the HyperPod node-health-status label.")
    nodesUnhealthy: int = Field(description=f"Nodes not Ready, or whose health label says other than {HEALTHY}.")
    gpus: GpuCounts
    groups: list[GroupOverview]
    nodes: list[NodeGpus] = Field(
        description=f"At most {OVERVIEW_NODES} nodes, those not Ready first, then by GPUs used; "
        "GET /clusters/{clusterTag}/nodes pages through every node."
    )
    podsTotal: int
    podsByPhase: dict[str, int]
    pendingByReason: dict[str, int]
    pendingPods: list[PendingPod] = Field(description=f"At most {OVERVIEW_PENDING_PODS}, oldest first.")
    warningEventsTotal: int = Field(description="Kubernetes Warning events counted.")
    events: list[WarningEvent] = Field(
        description=f"At most {OVERVIEW_EVENTS} warnings, newest first: Kubernetes' Warning events and HyperPod's "
        "Warn/Error cluster events; GET /clusters/{clusterTag}/hyperpod-events lists and filters them all."
    )
    observability: ObservabilityLinks | None = Field(
        default=None, description="Links to the observability dashboards when that feature is on."
    )


class PodView(View):
    namespace: str
    name: str
    node: str | None = None
    phase: str
    gpus: int = Field(description="GPUs the pod's containers ask for.")
    restarts: int
    reason: str | None = Field(default=None, description="Why a pod that is not running waits, when it says.")
    createdAt: str | None = None


class PodList(PageView):
    clusterTag: str
    pods: list[PodView]
