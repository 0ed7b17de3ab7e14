"""/clusters/{clusterTag}/health-checks: on-demand deep health checks on chosen nodes or groups (an operation)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response

from api.authorization import Routes, admin
from api.context import plan_or_run
from api.routers.params import ClusterTagPath
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import Accepted, Plan
from controlplane.models.health_checks import StartHealthCheckRequest

router = Routes()


@router.post(
    "/clusters/<clusterTag>/health-checks",
    allow=admin("run deep health checks"),
    operation_id="hyperpod_health_check",
    summary="Run deep health checks (GPU/EFA stress, connectivity) on nodes",
    description="Name nodeIds, instanceGroups (every node of each), or both; each must be Running. Each node leaves "
    "scheduling while checked; HyperPod reboots or replaces a node that fails. Without confirmationToken it returns "
    "the plan and a token: show it to the person, then repeat with the token. 202: an operation that ends when every "
    "check has; its stage gives each node's outcome (healthy, rebooted, replaced by <id>).",
    tags=["nodes"],
    responses={202: response_doc(Accepted, "Operation started"), 200: response_doc(Plan, "Plan (and token)")},
)
def start_health_check(clusterTag: ClusterTagPath, body: StartHealthCheckRequest) -> Response[str]:
    service = wiring.health_checks()
    return plan_or_run(
        router,
        dry_run=not body.confirmationToken,
        scope=f"health-check {clusterTag}",
        body=body.model_dump(mode="json"),
        plan=lambda caller: service.plan(clusterTag, body, caller),
        run=lambda caller: service.start(clusterTag, body, caller),
    )
