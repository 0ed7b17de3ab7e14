"""SageMaker managed MLflow: one Region's tracking servers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from controlplane.core.paging import Page


@dataclass(frozen=True)
class MlflowTrackingServer:
    name: str
    arn: str
    status: str
    active: bool
    mlflow_version: str | None = None
    created_at: datetime | None = None


class MlflowGateway(Protocol):
    def tracking_server_page(self, limit: int, token: str | None = None) -> Page[MlflowTrackingServer]:
        """One page of the Region's tracking servers, newest first."""

    def find_tracking_server(self, name: str) -> MlflowTrackingServer | None:
        """The tracking server named `name`, or None."""
