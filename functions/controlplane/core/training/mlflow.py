"""MLflow tracking for training jobs: the tracking servers of a cluster's Region, and the environment that points a
job at the one a submission chose.

Belongs here: listing the SageMaker managed MLflow tracking servers and turning an `MlflowTracking` choice into
the job's `MLFLOW_TRACKING_URI` (the server's ARN, which the sagemaker-mlflow plugin resolves) and
`MLFLOW_EXPERIMENT_NAME`. A server that does not exist is refused, naming those that do.
"""

from __future__ import annotations

from collections.abc import Callable

from controlplane.core.ports.mlflow import MlflowGateway
from controlplane.core.registry import ClusterService
from controlplane.models.common import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from controlplane.models.errors import NotFoundError
from controlplane.models.mlflow import MlflowTracking, MlflowTrackingServerList, MlflowTrackingServerView

TRACKING_URI = "MLFLOW_TRACKING_URI"
EXPERIMENT_NAME = "MLFLOW_EXPERIMENT_NAME"


class MlflowTrackingServerNotFoundError(NotFoundError):
    code = "MlflowTrackingServerNotFound"


class MlflowService:
    def __init__(self, clusters: ClusterService, gateway: Callable[[str], MlflowGateway]) -> None:
        self._clusters = clusters
        self._gateway = gateway

    def list_servers(
        self, cluster_tag: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None
    ) -> MlflowTrackingServerList:
        """One page of the tracking servers in the cluster's Region (a job can log to any of them)."""
        region = self._clusters.get(cluster_tag).region
        page = self._gateway(region).tracking_server_page(limit, token)
        return MlflowTrackingServerList(
            clusterTag=cluster_tag,
            region=region,
            trackingServers=[
                MlflowTrackingServerView(
                    name=server.name,
                    arn=server.arn,
                    status=server.status,
                    active=server.active,
                    mlflowVersion=server.mlflow_version,
                    createdAt=server.created_at,
                )
                for server in page.items
            ],
            continue_=page.next_token,
        )

    def environment(self, cluster_tag: str, tracking: MlflowTracking) -> dict[str, str]:
        """The environment that has a job log to `tracking`'s server and experiment."""
        region = self._clusters.get(cluster_tag).region
        gateway = self._gateway(region)
        server = gateway.find_tracking_server(tracking.trackingServer)
        if server is None:
            known = [found.name for found in gateway.tracking_server_page(MAX_PAGE_SIZE).items]
            raise MlflowTrackingServerNotFoundError(
                f"No MLflow tracking server named '{tracking.trackingServer}' in {region}; choose one of "
                f"{', '.join(known) or 'none: create one in SageMaker Studio first, or submit without mlflow'} "
                f"(GET /clusters/{cluster_tag}/mlflow-tracking-servers lists them).",
                {"trackingServers": known},
            )
        return {TRACKING_URI: server.arn, EXPERIMENT_NAME: tracking.experiment}
