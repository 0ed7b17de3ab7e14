"""/clusters/{clusterTag}/hyperpod-events: the cluster's events, HyperPod's (ListClusterEvents) and Kubernetes'
Warning events in one list, filtered."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from api.authorization import READ, Routes
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath
from controlplane import wiring
from controlplane.core.ports.hyperpod_activity import EventFilter
from controlplane.models.common import DEFAULT_PAGE_SIZE, NODE_ID_PATTERN, instance_id
from controlplane.models.hyperpod import GROUP_NAME_PATTERN
from controlplane.models.hyperpod_activity import ClusterEventList

OPERATION_ID_PATTERN = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

router = Routes()


@router.get(
    "/clusters/<clusterTag>/hyperpod-events",
    allow=READ,
    operation_id="hyperpod_list_cluster_events",
    summary="List HyperPod's events and Kubernetes' Warnings",
    description="HyperPod's cluster events (continuous provisioning) and the cluster's Kubernetes Warning events in "
    "one list (`source`), newest first, paged; filter by instanceGroup, nodeId or operationId (a HyperPod Scaling or "
    "DeepHealthCheck; keeps HyperPod's only). Each row is the whole event: no describe call is needed.",
    tags=["events"],
)
def list_cluster_events(
    clusterTag: ClusterTagPath,
    instanceGroup: Annotated[str | None, Query(pattern=GROUP_NAME_PATTERN)] = None,
    nodeId: Annotated[str | None, Query(pattern=NODE_ID_PATTERN)] = None,
    operationId: Annotated[str | None, Query(pattern=OPERATION_ID_PATTERN)] = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    continue_: Continue = None,
) -> ClusterEventList:
    refuse_unknown_parameters(router, "instanceGroup", "nodeId", "operationId")
    node = instance_id(nodeId) if nodeId else None
    filters = EventFilter(instance_group=instanceGroup, node_id=node, operation_id=operationId)
    return wiring.hyperpod_activity().events(clusterTag, filters, limit, continue_)
