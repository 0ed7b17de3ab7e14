"""HyperPod's cluster events (ListClusterEvents), a page at a time."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.core.paging import Page, decode_token, encode_token, invalid_token
from controlplane.core.ports.hyperpod_activity import EventFilter
from controlplane.models.hyperpod_activity import ClusterEventView


class AwsHyperPodActivityGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def event_page(
        self, cluster_name: str, filters: EventFilter, limit: int, token: str | None = None
    ) -> Page[ClusterEventView]:
        request: dict[str, Any] = {"ClusterName": cluster_name, "SortOrder": "Descending"}
        for key, value in (
            ("InstanceGroupName", filters.instance_group),
            ("NodeId", filters.node_id),
            ("OperationId", filters.operation_id),
        ):
            if value is not None:
                request[key] = value
        response = self._page("list_cluster_events", request, limit, token)
        events = [
            ClusterEventView(
                eventId=event["EventId"],
                time=event["EventTime"],
                resourceType=event["ResourceType"],
                level=event.get("EventLevel"),
                description=event.get("Description"),
                instanceGroup=event.get("InstanceGroupName"),
                nodeId=event.get("InstanceId"),
                operationId=event.get("OperationId"),
            )
            for event in response.get("Events", [])
        ]
        return Page(events, _next(response))

    def _page(self, method: str, request: dict[str, Any], limit: int, token: str | None) -> dict[str, Any]:
        """One page of ListClusterEvents (our token wraps SageMaker's); an empty one when the cluster is gone."""
        request = {**request, "MaxResults": limit}
        if token:
            position = decode_token(token)
            if not isinstance(position, dict) or not isinstance(position.get("sagemaker"), str):
                raise invalid_token()
            request["NextToken"] = position["sagemaker"]
        try:
            response: dict[str, Any] = getattr(client("sagemaker", self._region), method)(**request)
        except ClientError as error:
            if error_code(error) == "ResourceNotFound":
                return {}
            if error_code(error) == "ValidationException" and token:
                raise invalid_token() from error
            raise
        return response


def _next(response: dict[str, Any]) -> str | None:
    next_token = response.get("NextToken")
    return encode_token({"sagemaker": next_token}) if next_token else None
