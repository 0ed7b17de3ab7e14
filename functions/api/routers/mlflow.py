"""/clusters/{clusterTag}/mlflow-tracking-servers: the SageMaker managed MLflow tracking servers a training job of
the cluster can log to (the `mlflow` field of a recipe submission chooses one)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Path

from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from controlplane import wiring
from controlplane.models.common import CLUSTER_TAG_PATTERN, CLUSTER_TAG_RULE, DEFAULT_PAGE_SIZE
from controlplane.models.mlflow import MlflowTrackingServerList

router = Router()

ClusterTagPath = Annotated[str, Path(pattern=CLUSTER_TAG_PATTERN, description=f"Cluster tag ({CLUSTER_TAG_RULE}).")]


@router.get(
    "/clusters/<clusterTag>/mlflow-tracking-servers",
    operation_id="mlflow_list_tracking_servers",
    summary="List the MLflow tracking servers a job can log to",
    description="The SageMaker managed MLflow tracking servers in the cluster's Region, newest first, in pages of "
    "`limit` (pass `continue` back for the next page): name, ARN, status. Only when the person wants experiment "
    "tracking: pass one's name with an experiment as `mlflow` to job_submit_from_recipe, which sets the job's "
    "MLFLOW_TRACKING_URI and MLFLOW_EXPERIMENT_NAME.",
    tags=["jobs"],
)
def list_tracking_servers(
    clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None
) -> MlflowTrackingServerList:
    refuse_unknown_parameters(router)
    return wiring.mlflow().list_servers(clusterTag, limit, continue_)
