"""/clusters/{clusterTag}/model-pool: warm model-server workers (`business=unassigned`), bound to a service and
returned to the pool by relabelling their pods (never recreating them)."""

from __future__ import annotations

from api.authorization import READ, Routes, operator
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath
from controlplane import wiring
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.serving import ModelPool, PoolActionRequest, PoolActionResult

router = Routes()


@router.get(
    "/clusters/<clusterTag>/model-pool",
    allow=READ,
    operation_id="inference_list_pool",
    summary="List the model pool's workers",
    description="The warm workers of pool deployments (serviceType pool), in pages of `limit`: pod, uid, model, "
    "readiness and the service each is bound to (none: unassigned).",
    tags=["inference"],
)
def list_pool(clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None) -> ModelPool:
    refuse_unknown_parameters(router)
    return wiring.model_pool().workers(clusterTag, limit, continue_)


@router.post(
    "/clusters/<clusterTag>/model-pool",
    allow=operator("bind or unbind a pool worker"),
    operation_id="inference_pool_action",
    summary="Bind a pool worker to a service, or return it to the pool",
    description="`bind` relabels the worker `business=<service>` (creating the service, `serviceType` internal or "
    "external, on first bind) so the service routes to it; `unbind` relabels it `business=unassigned`. The pod "
    "(and its loaded model) stays: its uid is unchanged. A bound worker is never removed by scaling in.",
    tags=["inference"],
)
def pool_action(clusterTag: ClusterTagPath, request: PoolActionRequest) -> PoolActionResult:
    return wiring.model_pool().act(clusterTag, request)
