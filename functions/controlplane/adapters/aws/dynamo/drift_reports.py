"""The last drift report of each cluster."""

from __future__ import annotations

from controlplane.adapters.aws.session import client
from controlplane.models.drift import DriftReport


class DynamoDriftReportStore:
    """The last drift report of each cluster, keyed by cluster tag, the report as JSON in `body`."""

    def __init__(self, table: str) -> None:
        self._table = table

    def put(self, report: DriftReport) -> None:
        client("dynamodb").put_item(
            TableName=self._table,
            Item={"clusterTag": {"S": report.clusterTag}, "body": {"S": report.model_dump_json()}},
        )

    def find(self, cluster_tag: str) -> DriftReport | None:
        item = client("dynamodb").get_item(TableName=self._table, Key={"clusterTag": {"S": cluster_tag}}).get("Item")
        return DriftReport.model_validate_json(item["body"]["S"]) if item else None

    def forget_cluster(self, cluster_tag: str) -> None:
        client("dynamodb").delete_item(TableName=self._table, Key={"clusterTag": {"S": cluster_tag}})
