"""MLflow tracking for training jobs: the submission's choice of a SageMaker managed MLflow tracking server (and
experiment), and the views of the account's tracking servers.

Which environment the choice puts into a job is `controlplane.core.training.mlflow`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field, StringConstraints

from controlplane.models.common import Contract, PageView, View

# SageMaker's own rules for the two names (CreateMlflowTrackingServer, AIMlflowConfig).
TRACKING_SERVER_NAME_PATTERN = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,255}$"
EXPERIMENT_NAME_PATTERN = r"^[a-zA-Z0-9\-_./]{1,256}$"


class MlflowTracking(Contract):
    """Log the job's runs to a SageMaker managed MLflow tracking server of the cluster's Region: the job gets
    `MLFLOW_TRACKING_URI` (the server's ARN, as the sagemaker-mlflow plugin reads it) and `MLFLOW_EXPERIMENT_NAME`."""

    trackingServer: Annotated[str, StringConstraints(pattern=TRACKING_SERVER_NAME_PATTERN)] = Field(
        description="mlflow_list_tracking_servers lists them."
    )
    experiment: Annotated[str, StringConstraints(pattern=EXPERIMENT_NAME_PATTERN)] = Field(
        description="The runs' experiment."
    )


class MlflowTrackingServerView(View):
    name: str
    arn: str
    status: str = Field(description="SageMaker's TrackingServerStatus, e.g. Created, Creating, Stopped.")
    active: bool = Field(description="The server is running (IsActive is Active).")
    mlflowVersion: str | None = None
    createdAt: datetime | None = None


class MlflowTrackingServerList(PageView):
    clusterTag: str
    region: str
    trackingServers: list[MlflowTrackingServerView]
