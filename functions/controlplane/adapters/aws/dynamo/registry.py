"""The cluster registry: cluster records, each cluster's lock, and the VPC CIDRs reserved per Region."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.dynamo.shared import conditional_failed, query_page
from controlplane.adapters.aws.session import client
from controlplane.core.paging import Page
from controlplane.core.ports.persistence import ClusterLock
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import ClusterBusyError, ClusterExistsError, ClusterNotFoundError

REGISTRY_INDEX = "byRegistry"
REGISTRY_PARTITION = "cluster"
CIDR_PARTITION_PREFIX = "cidr#"


def _cidr_partition(region: str) -> str:
    return f"{CIDR_PARTITION_PREFIX}{region}"


def _cidr_key(region: str, cidr: str) -> str:
    return f"{_cidr_partition(region)}#{cidr}"


class DynamoClusterRegistry:
    """Cluster records; the lock (`activeOperationId`, `activeAttempt`, `lockedAt`) is kept in attributes of its
    own so that taking or releasing it is one conditional update.

    A VPC CIDR reservation is an item of the same table, keyed `cidr#<region>#<cidr>` (a key no cluster tag can
    take) in the index partition `cidr#<region>`, so the Region's reservations are one query and never listed as
    clusters.
    """

    def __init__(self, table: str) -> None:
        self._table = table

    def find(self, cluster_tag: str) -> ClusterRecord | None:
        item = (
            client("dynamodb")
            .get_item(TableName=self._table, Key={"clusterTag": {"S": cluster_tag}}, ConsistentRead=True)
            .get("Item")
        )
        return self._record(item) if item else None

    def list(self) -> list[ClusterRecord]:
        paginator = client("dynamodb").get_paginator("query")
        pages = paginator.paginate(
            TableName=self._table,
            IndexName=REGISTRY_INDEX,
            KeyConditionExpression="#r = :r",
            ExpressionAttributeNames={"#r": "registry"},
            ExpressionAttributeValues={":r": {"S": REGISTRY_PARTITION}},
        )
        return [self._record(item) for page in pages for item in page["Items"]]

    def page(self, limit: int, token: str | None = None) -> Page[ClusterRecord]:
        items, next_token = query_page(
            self._table,
            {
                "IndexName": REGISTRY_INDEX,
                "KeyConditionExpression": "#r = :r",
                "ExpressionAttributeNames": {"#r": "registry"},
                "ExpressionAttributeValues": {":r": {"S": REGISTRY_PARTITION}},
            },
            ("clusterTag", "registry"),
            limit,
            token,
        )
        return Page([self._record(item) for item in items], next_token)

    def create(self, record: ClusterRecord) -> None:
        try:
            client("dynamodb").put_item(
                TableName=self._table,
                Item={
                    "clusterTag": {"S": record.clusterTag},
                    "registry": {"S": REGISTRY_PARTITION},
                    "body": {"S": self._body(record)},
                },
                ConditionExpression="attribute_not_exists(clusterTag)",
            )
        except ClientError as error:
            if conditional_failed(error):
                raise ClusterExistsError(
                    f"Cluster '{record.clusterTag}' already exists; pick another clusterTag or delete it first.",
                    {"clusterTag": record.clusterTag},
                ) from error
            raise

    def save(self, record: ClusterRecord) -> None:
        client("dynamodb").update_item(
            TableName=self._table,
            Key={"clusterTag": {"S": record.clusterTag}},
            UpdateExpression="SET #b = :body, #r = :r",
            ExpressionAttributeNames={"#b": "body", "#r": "registry"},
            ExpressionAttributeValues={":body": {"S": self._body(record)}, ":r": {"S": REGISTRY_PARTITION}},
        )

    def acquire(self, cluster_tag: str, lock: ClusterLock, replacing: ClusterLock | None = None) -> None:
        condition = "attribute_exists(clusterTag) AND attribute_not_exists(activeOperationId)"
        values = {
            ":op": {"S": lock.operation_id},
            ":attempt": {"N": str(lock.attempt)},
            ":at": {"S": lock.acquired_at.isoformat()},
        }
        if replacing is not None:
            condition = "activeOperationId = :held AND activeAttempt = :heldAttempt AND lockedAt = :heldAt"
            values |= {
                ":held": {"S": replacing.operation_id},
                ":heldAttempt": {"N": str(replacing.attempt)},
                ":heldAt": {"S": replacing.acquired_at.isoformat()},
            }
        try:
            client("dynamodb").update_item(
                TableName=self._table,
                Key={"clusterTag": {"S": cluster_tag}},
                UpdateExpression="SET activeOperationId = :op, activeAttempt = :attempt, lockedAt = :at",
                ConditionExpression=condition,
                ExpressionAttributeValues=values,
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise
            item = error.response.get("Item")
            if not item:
                raise ClusterNotFoundError(
                    f"Cluster '{cluster_tag}' is no longer registered (it was deleted); GET /clusters lists the "
                    "clusters this control plane manages.",
                ) from error
            holder = item.get("activeOperationId", {}).get("S")  # type: ignore[union-attr]
            raise ClusterBusyError(
                f"Cluster '{cluster_tag}' is busy with operation {holder}; wait for it "
                f"(operation_wait) or cancel it before starting another.",
                {"activeOperationId": holder},
            ) from error

    def holder(self, cluster_tag: str) -> ClusterLock | None:
        item = (
            client("dynamodb")
            .get_item(TableName=self._table, Key={"clusterTag": {"S": cluster_tag}}, ConsistentRead=True)
            .get("Item")
        )
        if not item or "activeOperationId" not in item:
            return None
        return ClusterLock(
            operation_id=item["activeOperationId"]["S"],
            attempt=int(item.get("activeAttempt", {"N": "1"})["N"]),
            acquired_at=datetime.fromisoformat(item["lockedAt"]["S"]),
        )

    def release(self, cluster_tag: str, operation_id: str, attempt: int) -> None:
        try:
            client("dynamodb").update_item(
                TableName=self._table,
                Key={"clusterTag": {"S": cluster_tag}},
                UpdateExpression="REMOVE activeOperationId, activeAttempt, lockedAt",
                ConditionExpression="activeOperationId = :op AND activeAttempt = :attempt",
                ExpressionAttributeValues={":op": {"S": operation_id}, ":attempt": {"N": str(attempt)}},
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise

    def reserved_cidrs(self, region: str) -> dict[str, str]:
        paginator = client("dynamodb").get_paginator("query")
        pages = paginator.paginate(
            TableName=self._table,
            IndexName=REGISTRY_INDEX,
            KeyConditionExpression="#r = :r",
            ExpressionAttributeNames={"#r": "registry"},
            ExpressionAttributeValues={":r": {"S": _cidr_partition(region)}},
        )
        return {item["cidr"]["S"]: item["reservedFor"]["S"] for page in pages for item in page["Items"]}

    def reserve_cidr(self, region: str, cidr: str, cluster_tag: str) -> bool:
        try:
            client("dynamodb").put_item(
                TableName=self._table,
                Item={
                    "clusterTag": {"S": _cidr_key(region, cidr)},
                    "registry": {"S": _cidr_partition(region)},
                    "cidr": {"S": cidr},
                    "reservedFor": {"S": cluster_tag},
                },
                ConditionExpression="attribute_not_exists(clusterTag)",
            )
        except ClientError as error:
            if conditional_failed(error):
                return False
            raise
        return True

    def release_cidr(self, region: str, cidr: str, cluster_tag: str) -> None:
        try:
            client("dynamodb").delete_item(
                TableName=self._table,
                Key={"clusterTag": {"S": _cidr_key(region, cidr)}},
                ConditionExpression="reservedFor = :tag",
                ExpressionAttributeValues={":tag": {"S": cluster_tag}},
            )
        except ClientError as error:
            if not conditional_failed(error):
                raise

    def delete(self, cluster_tag: str) -> None:
        client("dynamodb").delete_item(TableName=self._table, Key={"clusterTag": {"S": cluster_tag}})

    @staticmethod
    def _body(record: ClusterRecord) -> str:
        return record.model_dump_json(exclude={"activeOperationId"})

    @staticmethod
    def _record(item: dict[str, Any]) -> ClusterRecord:
        data = json.loads(item["body"]["S"])
        data["activeOperationId"] = item.get("activeOperationId", {}).get("S")
        return ClusterRecord.model_validate(data)
