"""Amazon Managed Service for Prometheus (`amp`) workspaces."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.core.ports.prometheus import PrometheusWorkspace


def _workspace(data: dict[str, Any]) -> PrometheusWorkspace:
    return PrometheusWorkspace(
        workspace_id=data["workspaceId"],
        arn=data["arn"],
        status=data["status"]["statusCode"],
        endpoint=data.get("prometheusEndpoint"),
        tags=dict(data.get("tags") or {}),
    )


class AwsPrometheusGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def workspaces(self, alias: str) -> list[PrometheusWorkspace]:
        amp = client("amp", self._region)
        found = []
        for page in amp.get_paginator("list_workspaces").paginate(alias=alias):
            for summary in page["workspaces"]:
                # The summary has no endpoint: describe each (an alias names one workspace or a few).
                try:
                    found.append(_workspace(amp.describe_workspace(workspaceId=summary["workspaceId"])["workspace"]))
                except ClientError as error:
                    if error_code(error) != "ResourceNotFoundException":
                        raise
        return found

    def create_workspace(self, alias: str, tags: dict[str, str]) -> PrometheusWorkspace:
        amp = client("amp", self._region)
        created = amp.create_workspace(alias=alias, tags=tags)
        return _workspace(amp.describe_workspace(workspaceId=created["workspaceId"])["workspace"])

    def delete_workspace(self, workspace_id: str) -> None:
        try:
            client("amp", self._region).delete_workspace(workspaceId=workspace_id)
        except ClientError as error:
            if error_code(error) != "ResourceNotFoundException":
                raise
