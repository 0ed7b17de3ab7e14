"""Operations, keyed by id; the `byCluster` index lists a cluster's newest first. A write names the version it
replaces, so two writers of one operation never both win."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.dynamo.shared import conditional_failed, query_page
from controlplane.adapters.aws.session import client
from controlplane.core.paging import Page
from controlplane.models.errors import StaleVersionError
from controlplane.models.operations import Operation

CLUSTER_INDEX = "byCluster"


class DynamoOperationRepository:
    def __init__(self, table: str) -> None:
        self._table = table

    def create(self, operation: Operation) -> None:
        try:
            client("dynamodb").put_item(
                TableName=self._table,
                Item=self._item(operation),
                ConditionExpression="attribute_not_exists(operationId)",
            )
        except ClientError as error:
            if conditional_failed(error):
                raise StaleVersionError(f"Operation {operation.operationId} already exists.") from error
            raise

    def find(self, operation_id: str) -> Operation | None:
        item = (
            client("dynamodb")
            .get_item(TableName=self._table, Key={"operationId": {"S": operation_id}}, ConsistentRead=True)
            .get("Item")
        )
        return Operation.model_validate_json(item["body"]["S"]) if item else None

    def replace(self, operation: Operation, expected_version: int) -> Operation:
        written = operation.model_copy(update={"version": expected_version + 1})
        try:
            client("dynamodb").put_item(
                TableName=self._table,
                Item=self._item(written),
                ConditionExpression="#v = :expected",
                ExpressionAttributeNames={"#v": "version"},
                ExpressionAttributeValues={":expected": {"N": str(expected_version)}},
            )
        except ClientError as error:
            if conditional_failed(error):
                raise StaleVersionError(
                    f"Operation {operation.operationId} changed since version {expected_version}."
                ) from error
            raise
        return written

    def list_for_cluster(self, cluster_tag: str, limit: int, token: str | None = None) -> Page[Operation]:
        items, next_token = query_page(
            self._table,
            {
                "IndexName": CLUSTER_INDEX,
                "KeyConditionExpression": "clusterTag = :tag",
                "ExpressionAttributeValues": {":tag": {"S": cluster_tag}},
                "ScanIndexForward": False,
            },
            ("operationId", "clusterTag", "createdAt"),
            limit,
            token,
        )
        return Page([Operation.model_validate_json(item["body"]["S"]) for item in items], next_token)

    @staticmethod
    def _item(operation: Operation) -> dict[str, Any]:
        return {
            "operationId": {"S": operation.operationId},
            "clusterTag": {"S": operation.target},
            "createdAt": {"S": operation.createdAt.isoformat()},
            "status": {"S": operation.status.value},
            "version": {"N": str(operation.version)},
            "body": {"S": operation.model_dump_json()},
        }
