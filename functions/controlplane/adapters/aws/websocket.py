"""Live logs' AWS side: the connections table (connections and the pushers' leases), posts through API Gateway's
management API, and a pusher started as an asynchronous invocation of the WebSocket function.

The connections table is keyed by `connectionId`; a connection's followed topic is `topic` (the `byTopic` index,
sparse: a connection that follows nothing has no `topic`). A pusher's lease is an item of the same table keyed
`pusher#<topic>`, with no `topic` attribute, so the index never returns it. Every item carries `ttl`.
"""

from __future__ import annotations

import json
import threading
from functools import cached_property
from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, session
from controlplane.core.auth import Role
from controlplane.core.ports.logstream import Connection, PusherLease
from controlplane.models.logstream import PUSH_ACTION

TOPIC_INDEX = "byTopic"
LEASE_PREFIX = "pusher#"
# A lease item outlives its last renewal by this much before DynamoDB's TTL removes it.
LEASE_KEEP_SECONDS = 3600
_creating = threading.Lock()  # boto3 sessions are not thread-safe


def _conditional_failed(error: ClientError) -> bool:
    return error_code(error) == "ConditionalCheckFailedException"


class DynamoConnectionRepository:
    def __init__(self, table: str) -> None:
        self._table = table

    def add(self, connection: Connection, expires_at: float) -> None:
        client("dynamodb").put_item(
            TableName=self._table,
            Item={
                "connectionId": {"S": connection.connection_id},
                "principal": {"S": connection.principal},
                "role": {"S": connection.role.name.lower()},
                "ttl": {"N": str(int(expires_at))},
            },
        )

    def get(self, connection_id: str) -> Connection | None:
        item = (
            client("dynamodb")
            .get_item(TableName=self._table, Key={"connectionId": {"S": connection_id}}, ConsistentRead=True)
            .get("Item")
        )
        if not item or "principal" not in item:
            return None
        return Connection(
            connection_id=connection_id,
            principal=item["principal"]["S"],
            role=Role.parse(item["role"]["S"]) or Role.VIEWER,
            topic=item["topic"]["S"] if "topic" in item else None,
        )

    def follow(self, connection_id: str, topic: str | None) -> None:
        update = "SET topic = :t" if topic else "REMOVE topic"
        try:
            client("dynamodb").update_item(
                TableName=self._table,
                Key={"connectionId": {"S": connection_id}},
                UpdateExpression=update,
                ConditionExpression="attribute_exists(principal)",
                **({"ExpressionAttributeValues": {":t": {"S": topic}}} if topic else {}),
            )
        except ClientError as error:
            if not _conditional_failed(error):  # closed meanwhile: nothing to follow with
                raise

    def remove(self, connection_id: str) -> None:
        client("dynamodb").delete_item(TableName=self._table, Key={"connectionId": {"S": connection_id}})

    def followers(self, topic: str) -> list[str]:
        paginator = client("dynamodb").get_paginator("query")
        pages = paginator.paginate(
            TableName=self._table,
            IndexName=TOPIC_INDEX,
            KeyConditionExpression="topic = :t",
            ExpressionAttributeValues={":t": {"S": topic}},
            ProjectionExpression="connectionId",
        )
        return [item["connectionId"]["S"] for page in pages for item in page["Items"]]

    def acquire(self, lease: PusherLease, now: float) -> bool:
        try:
            client("dynamodb").put_item(
                TableName=self._table,
                Item=_lease_item(lease),
                ConditionExpression="attribute_not_exists(connectionId) OR leaseUntil < :now",
                ExpressionAttributeValues={":now": {"N": repr(now)}},
            )
        except ClientError as error:
            if _conditional_failed(error):
                return False
            raise
        return True

    def renew(self, lease: PusherLease) -> bool:
        try:
            client("dynamodb").put_item(
                TableName=self._table,
                Item=_lease_item(lease),
                ConditionExpression="#owner = :owner",
                ExpressionAttributeNames={"#owner": "owner"},
                ExpressionAttributeValues={":owner": {"S": lease.owner}},
            )
        except ClientError as error:
            if _conditional_failed(error):
                return False
            raise
        return True

    def release(self, lease: PusherLease) -> None:
        try:
            client("dynamodb").delete_item(
                TableName=self._table,
                Key={"connectionId": {"S": LEASE_PREFIX + lease.topic}},
                ConditionExpression="#owner = :owner",
                ExpressionAttributeNames={"#owner": "owner"},
                ExpressionAttributeValues={":owner": {"S": lease.owner}},
            )
        except ClientError as error:
            if not _conditional_failed(error):
                raise

    def lease(self, topic: str) -> PusherLease | None:
        item = (
            client("dynamodb")
            .get_item(TableName=self._table, Key={"connectionId": {"S": LEASE_PREFIX + topic}}, ConsistentRead=True)
            .get("Item")
        )
        if not item:
            return None
        return PusherLease(
            topic=topic,
            owner=item["owner"]["S"],
            until=float(item["leaseUntil"]["N"]),
            pod=item["pod"]["S"],
            sent=int(item["sent"]["N"]),
            last_line=item["lastLine"]["S"],
        )


def _lease_item(lease: PusherLease) -> dict[str, Any]:
    return {
        "connectionId": {"S": LEASE_PREFIX + lease.topic},
        "owner": {"S": lease.owner},
        "leaseUntil": {"N": repr(lease.until)},
        "pod": {"S": lease.pod},
        "sent": {"N": str(lease.sent)},
        "lastLine": {"S": lease.last_line},
        "ttl": {"N": str(int(lease.until) + LEASE_KEEP_SECONDS)},
    }


class ApiGatewayConnectionNotifier:
    """Posts to connections through the WebSocket API's management endpoint
    (`https://<api-id>.execute-api.<region>.amazonaws.com/<stage>`)."""

    def __init__(self, endpoint_url: str) -> None:
        self._endpoint_url = endpoint_url

    def post(self, connection_id: str, data: bytes) -> bool:
        try:
            self.management.post_to_connection(ConnectionId=connection_id, Data=data)
        except ClientError as error:
            if error_code(error) == "GoneException":
                return False
            raise
        return True

    @cached_property
    def management(self) -> Any:
        """The management API's client, built on first use (its endpoint is the API's, not the Region's)."""
        with _creating:
            return session().client("apigatewaymanagementapi", endpoint_url=self._endpoint_url)


class LambdaPusherLauncher:
    """Starts a pusher as an asynchronous invocation of the WebSocket function (`{"action": "push", ...}`)."""

    def __init__(self, function_name: str) -> None:
        self._function_name = function_name

    def start(self, topic: str, owner: str) -> None:
        payload = {"action": PUSH_ACTION, "topic": topic, "owner": owner}
        client("lambda").invoke(
            FunctionName=self._function_name, InvocationType="Event", Payload=json.dumps(payload).encode()
        )
