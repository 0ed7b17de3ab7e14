"""/clusters/{clusterTag}/mlflow-tracking-servers: the SageMaker managed MLflow tracking servers a training job of
the cluster can log to (the `mlflow` field of a recipe submission chooses one)."""

from __future__ import annotations

from api.authorization import READ, Routes
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath
from controlplane import wiring
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.mlflow import MlflowTrackingServerList

router = Routes()


@router.get(
    "/clusters/<clusterTag>/mlflow-tracking-servers",
    allow=READ,
    operation_id="mlflow_list_tracking_servers",
    summary="List the MLflow tracking servers a job can log to",
    description="The SageMaker managed MLflow tracking servers in the cluster's Region, newest first, in pages of "
    "`limit` (pass `continue` back for the next page): name, ARN, status. Only for experiment tracking: pass "
    "one's name as `mlflow` to job_submit_from_recipe (the job gets MLFLOW_TRACKING_URI).",
    tags=["jobs"],
)
def list_tracking_servers(
    clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None
) -> MlflowTrackingServerList:
    refuse_unknown_parameters(router)
    return wiring.mlflow().list_servers(clusterTag, limit, continue_)
