"""SageMaker managed MLflow tracking servers (ListMlflowTrackingServers, DescribeMlflowTrackingServer)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.core.paging import Page, decode_token, encode_token, invalid_token
from controlplane.core.ports.mlflow import MlflowTrackingServer


class AwsMlflowGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def tracking_server_page(self, limit: int, token: str | None = None) -> Page[MlflowTrackingServer]:
        request: dict[str, Any] = {"MaxResults": limit, "SortBy": "CreationTime", "SortOrder": "Descending"}
        if token:
            position = decode_token(token)
            if not isinstance(position, dict) or not isinstance(position.get("sagemaker"), str):
                raise invalid_token()
            request["NextToken"] = position["sagemaker"]
        try:
            response = client("sagemaker", self._region).list_mlflow_tracking_servers(**request)
        except ClientError as error:
            if error_code(error) == "ValidationException" and token:
                raise invalid_token() from error
            raise
        next_token = response.get("NextToken")
        return Page(
            [_server(summary) for summary in response.get("TrackingServerSummaries", [])],
            encode_token({"sagemaker": next_token}) if next_token else None,
        )

    def find_tracking_server(self, name: str) -> MlflowTrackingServer | None:
        try:
            server = client("sagemaker", self._region).describe_mlflow_tracking_server(TrackingServerName=name)
        except ClientError as error:
            if error_code(error) in ("ResourceNotFound", "ValidationException"):
                return None
            raise
        return _server(server)


def _server(wire: dict[str, Any]) -> MlflowTrackingServer:
    """A tracking server from a TrackingServerSummary or a DescribeMlflowTrackingServer response."""
    return MlflowTrackingServer(
        name=wire["TrackingServerName"],
        arn=wire["TrackingServerArn"],
        status=wire.get("TrackingServerStatus", "Unknown"),
        active=wire.get("IsActive") == "Active",
        mlflow_version=wire.get("MlflowVersion"),
        created_at=wire.get("CreationTime"),
    )
