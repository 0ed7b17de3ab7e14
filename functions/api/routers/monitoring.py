"""/clusters/{clusterTag}/overview and /pods: the monitoring aggregate of a cluster and its pods, paged."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from api.authorization import READ, Routes
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath
from controlplane import wiring
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.monitoring import ClusterOverview, PodList, PodPhase
from controlplane.observability import record_unhealthy_nodes

router = Routes()

# Kubernetes' own name rules: a namespace is a DNS label, a node a DNS subdomain.
NAMESPACE_PATTERN = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
NODE_NAME_PATTERN = r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"
POD_FILTERS = ("namespace", "phase", "node")


@router.get(
    "/clusters/<clusterTag>/overview",
    allow=READ,
    operation_id="cluster_get_overview",
    summary="Get the cluster's monitoring overview",
    description="Read this first to see how a cluster is doing: nodes by state (Ready, Cordoned, NotReady) and by "
    "HyperPod health label, GPUs total / allocatable / used / available for the cluster, per instance group and per "
    "node (the 100 most telling nodes, with the count), pods by phase, the pending ones and why (oldest 50, counts "
    "by reason), and the newest 50 warnings, Kubernetes' and HyperPod's (with the Kubernetes count). Counted over "
    "every node and pod on the server; links to the observability dashboards when that feature is on. Next: GET "
    "/clusters/{clusterTag}/pods to page through pods, GET /clusters/{clusterTag}/nodes for node actions.",
    tags=["monitoring"],
)
def get_overview(clusterTag: ClusterTagPath) -> ClusterOverview:
    refuse_unknown_parameters(router)
    overview = wiring.monitoring().overview(clusterTag)
    record_unhealthy_nodes(clusterTag, overview.nodesUnhealthy)
    return overview


@router.get(
    "/clusters/<clusterTag>/pods",
    allow=READ,
    operation_id="cluster_list_pods",
    summary="List the cluster's pods",
    description="Pods of every namespace (or of `namespace`), in pages of `limit` (default 50; pass `continue` back "
    "for the next page), optionally only those in `phase` or on `node`: namespace, name, node, phase, GPUs asked "
    "for, restarts, and why a pod that is not running waits.",
    tags=["monitoring"],
)
def list_pods(
    clusterTag: ClusterTagPath,
    limit: Limit = DEFAULT_PAGE_SIZE,
    continue_: Continue = None,
    namespace: Annotated[
        str | None, Query(pattern=NAMESPACE_PATTERN, description="Only this namespace's pods.")
    ] = None,
    phase: Annotated[PodPhase | None, Query(description="Only pods in this phase.")] = None,
    node: Annotated[
        str | None, Query(pattern=NODE_NAME_PATTERN, description="Only the pods on this Kubernetes node.")
    ] = None,
) -> PodList:
    refuse_unknown_parameters(router, *POD_FILTERS)
    return wiring.monitoring().pods(clusterTag, limit, continue_, namespace, phase, node)
