"""SageMaker managed MLflow tracking servers, which moto does not implement: every Region of the sandbox account
has one tracking server, `SANDBOX_TRACKING_SERVER`, so a job can be pointed at it (and an unknown name refused).

ListMlflowTrackingServers and DescribeMlflowTrackingServer are answered here; nothing else of MLflow is simulated
(the sandbox's training pods log nothing to it).
"""

from __future__ import annotations

import json
from typing import Any

from moto.sagemaker.responses import SageMakerResponse

from sandbox.aws.patches import Patches

SANDBOX_TRACKING_SERVER = "sandbox-tracking"
MLFLOW_VERSION = "2.16.2"
# 2026-01-01T00:00:00Z: a fixed creation time, so listings are stable.
CREATED = 1767225600.0
JSON_HEADERS = {"Content-Type": "application/x-amz-json-1.1"}
# The fields of a TrackingServerSummary (ListMlflowTrackingServers) among DescribeMlflowTrackingServer's.
SUMMARY_FIELDS = (
    "TrackingServerArn",
    "TrackingServerName",
    "CreationTime",
    "LastModifiedTime",
    "TrackingServerStatus",
    "IsActive",
    "MlflowVersion",
)


def tracking_server(region: str, account: str) -> dict[str, Any]:
    """The Region's tracking server as DescribeMlflowTrackingServer returns it."""
    return {
        "TrackingServerArn": f"arn:aws:sagemaker:{region}:{account}:mlflow-tracking-server/{SANDBOX_TRACKING_SERVER}",
        "TrackingServerName": SANDBOX_TRACKING_SERVER,
        "TrackingServerStatus": "Created",
        "IsActive": "Active",
        "MlflowVersion": MLFLOW_VERSION,
        "TrackingServerSize": "Small",
        "CreationTime": CREATED,
        "LastModifiedTime": CREATED,
    }


class MlflowExtension:
    """ListMlflowTrackingServers and DescribeMlflowTrackingServer on moto's SageMaker responses."""

    def __init__(self) -> None:
        self._patches = Patches()

    def install(self) -> None:
        def list_mlflow_tracking_servers(response: SageMakerResponse) -> tuple[str, dict[str, Any]]:
            server = tracking_server(response.region, response.current_account)
            summary = {key: server[key] for key in SUMMARY_FIELDS}
            return json.dumps({"TrackingServerSummaries": [summary]}), {"status": 200, **JSON_HEADERS}

        def describe_mlflow_tracking_server(response: SageMakerResponse) -> tuple[str, dict[str, Any]]:
            name = json.loads(response.body or "{}").get("TrackingServerName")
            if name != SANDBOX_TRACKING_SERVER:
                body = {"__type": "ResourceNotFound", "message": f"Tracking server {name} not found"}
                return json.dumps(body), {"status": 400, "x-amzn-ErrorType": "ResourceNotFound", **JSON_HEADERS}
            server = tracking_server(response.region, response.current_account)
            return json.dumps(server), {"status": 200, **JSON_HEADERS}

        self._patches.replace(SageMakerResponse, "list_mlflow_tracking_servers", list_mlflow_tracking_servers)
        self._patches.replace(SageMakerResponse, "describe_mlflow_tracking_server", describe_mlflow_tracking_server)

    def uninstall(self) -> None:
        self._patches.restore()
