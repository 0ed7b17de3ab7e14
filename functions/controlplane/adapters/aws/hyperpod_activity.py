"""HyperPod's cluster events (ListClusterEvents), newest first, read a page at a time as the caller iterates."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.core.ports.hyperpod_activity import EventFilter
from controlplane.models.hyperpod_activity import ClusterEventView

PAGE_SIZE = 100  # ListClusterEvents' MaxResults ceiling
# EventTimeBefore is exclusive: ask a second past the cursor, and the caller drops what it has already shown.
INCLUSIVE = timedelta(seconds=1)


class AwsHyperPodActivityGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def events(
        self, cluster_name: str, filters: EventFilter, before: datetime | None = None
    ) -> Iterator[ClusterEventView]:
        request: dict[str, Any] = {"ClusterName": cluster_name, "SortOrder": "Descending", "MaxResults": PAGE_SIZE}
        for key, value in (
            ("InstanceGroupName", filters.instance_group),
            ("NodeId", filters.node_id),
            ("OperationId", filters.operation_id),
            ("EventTimeBefore", before + INCLUSIVE if before else None),
        ):
            if value is not None:
                request[key] = value
        sagemaker = client("sagemaker", self._region)
        while True:
            try:
                response = sagemaker.list_cluster_events(**request)
            except ClientError as error:
                if error_code(error) == "ResourceNotFound":
                    return
                raise
            yield from (_view(event) for event in response.get("Events", []))
            if not response.get("NextToken"):
                return
            request["NextToken"] = response["NextToken"]


def _view(event: dict[str, Any]) -> ClusterEventView:
    return ClusterEventView(
        source="hyperpod",
        eventId=event["EventId"],
        time=event["EventTime"],
        resourceType=event["ResourceType"],
        level=event.get("EventLevel"),
        description=event.get("Description"),
        instanceGroup=event.get("InstanceGroupName"),
        nodeId=event.get("InstanceId"),
        operationId=event.get("OperationId"),
    )
