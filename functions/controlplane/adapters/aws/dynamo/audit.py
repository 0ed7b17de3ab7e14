"""The audit trail: who did what to which target, readable per target or, through the `byTime` index, whole."""

from __future__ import annotations

from typing import Any

from controlplane.adapters.aws.session import client
from controlplane.core.paging import Page, decode_token, encode_token, invalid_token
from controlplane.core.ports.persistence import AuditQuery
from controlplane.models.audit import AuditEntry

AUDIT_TIME_INDEX = "byTime"
AUDIT_PARTITION = "audit"
# A filtered page reads this many items per query, and at most MAX_AUDIT_ITEMS_READ in all: a filter that matches
# few returns a shorter page and a token.
AUDIT_READ_BATCH = 250
MAX_AUDIT_ITEMS_READ = 1000


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
