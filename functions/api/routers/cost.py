"""/clusters/{clusterTag}/cost: running instance-hours per instance group, priced where capacity is on demand."""

from __future__ import annotations

from api.authorization import READ, Routes
from api.routers.params import ClusterTagPath
from controlplane import wiring
from controlplane.models.drift import CostView

router = Routes()


@router.get(
    "/clusters/<clusterTag>/cost",
    allow=READ,
    operation_id="cluster_get_cost",
    summary="Read what the cluster's running instances have used, per instance group",
    description=(
        "Per instance group: running instances, instance-hours since each node's launch, and for on-demand "
        "groups the on-demand price per hour from the AWS Price List and the cost so far (USD). Spot and "
        "training-plan capacity is labelled as such and never priced at the on-demand rate. An estimate from "
        "list prices, not a bill."
    ),
    tags=["cost"],
)
def get_cost(clusterTag: ClusterTagPath) -> CostView:
    return wiring.cost().view(clusterTag)
