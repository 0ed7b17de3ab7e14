"""In-memory SageMaker managed MLflow tracking servers of one Region."""

from __future__ import annotations

from controlplane.core.paging import Page, page_of
from controlplane.core.ports.mlflow import MlflowTrackingServer


class InMemoryMlflowGateway:
    def __init__(self, region: str = "us-west-2", account: str = "123456789012") -> None:
        self.region = region
        self.account = account
        self.servers: list[MlflowTrackingServer] = []

    def add(self, name: str, status: str = "Created") -> MlflowTrackingServer:
        arn = f"arn:aws:sagemaker:{self.region}:{self.account}:mlflow-tracking-server/{name}"
        server = MlflowTrackingServer(name=name, arn=arn, status=status, active=True, mlflow_version="2.16.2")
        self.servers.append(server)
        return server

    def tracking_server_page(self, limit: int, token: str | None = None) -> Page[MlflowTrackingServer]:
        return page_of(self.servers, limit, token)

    def find_tracking_server(self, name: str) -> MlflowTrackingServer | None:
        return next((server for server in self.servers if server.name == name), None)
