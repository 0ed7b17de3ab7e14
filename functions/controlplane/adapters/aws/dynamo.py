"""DynamoDB repositories: operations, the cluster registry, audit records, confirmations and recipes' last values.

Each item keeps the record as JSON in `body` beside the key and condition attributes, so
conditional writes compare a number and reads never need type conversion.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.core.paging import Page, decode_token, encode_token, invalid_token
from controlplane.core.ports.persistence import AuditQuery, ClusterLock, Confirmation
from controlplane.models.audit import AuditEntry
from controlplane.models.clusters import ClusterRecord
from controlplane.models.drift import DriftReport
from controlplane.models.errors import ClusterBusyError, ClusterExistsError, StaleVersionError
from controlplane.models.operations import Operation

CLUSTER_INDEX = "byCluster"
REGISTRY_INDEX = "byRegistry"
REGISTRY_PARTITION = "cluster"
CIDR_PARTITION_PREFIX = "cidr#"
AUDIT_TIME_INDEX = "byTime"
AUDIT_PARTITION = "audit"
# A filtered page reads this many items per query, and at most MAX_AUDIT_ITEMS_READ in all: a filter that matches
# few returns a shorter page and a token.
AUDIT_READ_BATCH = 250
MAX_AUDIT_ITEMS_READ = 1000


def query_page(
    table: str, query: dict[str, Any], key_attributes: tuple[str, ...], limit: int, token: str | None
) -> tuple[list[dict[str, Any]], str | None]:
    """One page of a Query and an honest token: one item more is read, so the last page carries no token.

    The token wraps the key (`key_attributes`: the table's and the index's) of the page's last item.
    """
    request: dict[str, Any] = {"TableName": table, **query, "Limit": limit + 1}
    if token:
        start = decode_token(token)
        if not isinstance(start, dict) or set(start) != set(key_attributes):
            raise invalid_token()
        request["ExclusiveStartKey"] = {name: {"S": str(start[name])} for name in key_attributes}
    items: list[dict[str, Any]] = client("dynamodb").query(**request)["Items"]
    if len(items) <= limit:
        return items, None
    last = items[limit - 1]
    return items[:limit], encode_token({name: last[name]["S"] for name in key_attributes})


def _conditional_failed(error: ClientError) -> bool:
    return error_code(error) == "ConditionalCheckFailedException"


def _cidr_partition(region: str) -> str:
    return f"{CIDR_PARTITION_PREFIX}{region}"


def _cidr_key(region: str, cidr: str) -> str:
    return f"{_cidr_partition(region)}#{cidr}"


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
            if _conditional_failed(error):
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
            if _conditional_failed(error):
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
            if _conditional_failed(error):
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
            if not _conditional_failed(error):
                raise
            holder = error.response.get("Item", {}).get("activeOperationId", {}).get("S")  # type: ignore[union-attr]
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
            if not _conditional_failed(error):
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
            if _conditional_failed(error):
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
            if not _conditional_failed(error):
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


class DynamoAuditLog:
    """Entries keyed by target and `<at>#<requestId>`; every entry is also in one partition of the `byTime` index,
    so the whole trail reads newest first without a scan. Filters other than the target apply to the items read."""

    def __init__(self, table: str) -> None:
        self._table = table

    def record(self, entry: AuditEntry) -> None:
        client("dynamodb").put_item(
            TableName=self._table,
            Item={
                "target": {"S": entry.target},
                "sortKey": {"S": f"{entry.at.isoformat()}#{entry.requestId}"},
                "log": {"S": AUDIT_PARTITION},
                "body": {"S": entry.model_dump_json()},
            },
        )

    def list_for_target(self, target: str) -> list[AuditEntry]:
        response = client("dynamodb").query(
            TableName=self._table,
            KeyConditionExpression="#t = :t",
            ExpressionAttributeNames={"#t": "target"},
            ExpressionAttributeValues={":t": {"S": target}},
        )
        return [AuditEntry.model_validate_json(item["body"]["S"]) for item in response["Items"]]

    def page(self, query: AuditQuery, limit: int, token: str | None = None) -> Page[AuditEntry]:
        if query.cluster_tag is not None:
            request: dict[str, Any] = {
                "KeyConditionExpression": "#p = :p",
                "ExpressionAttributeNames": {"#p": "target"},
                "ExpressionAttributeValues": {":p": {"S": query.cluster_tag}},
            }
            key_attributes: tuple[str, ...] = ("target", "sortKey")
        else:
            request = {
                "IndexName": AUDIT_TIME_INDEX,
                "KeyConditionExpression": "#p = :p",
                "ExpressionAttributeNames": {"#p": "log"},
                "ExpressionAttributeValues": {":p": {"S": AUDIT_PARTITION}},
            }
            key_attributes = ("target", "sortKey", "log")
        filtered = query.actor is not None or query.operation_id is not None
        batch = max(limit + 1, AUDIT_READ_BATCH) if filtered else limit + 1
        request.update(TableName=self._table, ScanIndexForward=False, Limit=batch)
        if token:
            start = decode_token(token)
            if not isinstance(start, dict) or set(start) != set(key_attributes):
                raise invalid_token()
            request["ExclusiveStartKey"] = {name: {"S": str(start[name])} for name in key_attributes}
        matched: list[tuple[dict[str, Any], AuditEntry]] = []
        read = 0
        while True:
            response = client("dynamodb").query(**request)
            for item in response["Items"]:
                read += 1
                entry = AuditEntry.model_validate_json(item["body"]["S"])
                if query.matches(entry):
                    matched.append((item, entry))
                if len(matched) > limit or read >= MAX_AUDIT_ITEMS_READ:
                    last = matched[limit - 1][0] if len(matched) > limit else item
                    return Page(
                        [entry for _, entry in matched[:limit]],
                        encode_token({name: last[name]["S"] for name in key_attributes}),
                    )
            if "LastEvaluatedKey" not in response:
                return Page([entry for _, entry in matched], None)
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]


class DynamoConfirmationStore:
    """Single-use confirmation tokens; expired items are also removed by the table's TTL."""

    def __init__(self, table: str) -> None:
        self._table = table

    def put(self, confirmation: Confirmation) -> None:
        client("dynamodb").put_item(
            TableName=self._table,
            Item={
                "token": {"S": confirmation.token},
                "principal": {"S": confirmation.principal},
                "action": {"S": confirmation.action},
                "target": {"S": confirmation.target},
                "fingerprint": {"S": confirmation.fingerprint},
                "expiresAt": {"S": confirmation.expires_at.isoformat()},
                "ttl": {"N": str(int(confirmation.expires_at.timestamp()))},
            },
        )

    def take(
        self, token: str, principal: str, action: str, target: str, fingerprint: str, now: datetime
    ) -> Confirmation | None:
        try:
            item = (
                client("dynamodb")
                .delete_item(
                    TableName=self._table,
                    Key={"token": {"S": token}},
                    ConditionExpression=(
                        "principal = :p AND #a = :a AND #t = :t AND fingerprint = :f AND #ttl >= :now"
                    ),
                    ExpressionAttributeNames={"#a": "action", "#t": "target", "#ttl": "ttl"},
                    ExpressionAttributeValues={
                        ":p": {"S": principal},
                        ":a": {"S": action},
                        ":t": {"S": target},
                        ":f": {"S": fingerprint},
                        ":now": {"N": str(int(now.timestamp()))},
                    },
                    ReturnValues="ALL_OLD",
                )
                .get("Attributes")
            )
        except ClientError as error:
            if _conditional_failed(error):
                return None
            raise
        if not item:
            return None
        return Confirmation(
            token=token,
            principal=principal,
            action=action,
            target=target,
            fingerprint=fingerprint,
            expires_at=datetime.fromisoformat(item["expiresAt"]["S"]),
        )


class DynamoRecipeValuesStore:
    """Each caller's last values per recipe, keyed by (principal, recipe), the values as JSON in `body`."""

    def __init__(self, table: str) -> None:
        self._table = table

    def get(self, principal: str, recipe: str) -> dict[str, Any] | None:
        key = {"principal": {"S": principal}, "recipe": {"S": recipe}}
        item = client("dynamodb").get_item(TableName=self._table, Key=key).get("Item")
        return dict(json.loads(item["body"]["S"])) if item else None

    def put(self, principal: str, recipe: str, values: Mapping[str, Any]) -> None:
        client("dynamodb").put_item(
            TableName=self._table,
            Item={"principal": {"S": principal}, "recipe": {"S": recipe}, "body": {"S": json.dumps(dict(values))}},
        )


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
