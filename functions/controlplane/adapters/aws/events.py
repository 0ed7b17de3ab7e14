"""DynamoDB storage of day-two events (`Events` table) and event waits (`EventWaits`), and the Step Functions
task-token signal that ends a wait.

`Events` items, under the cluster tag (`cluster`): `event#<time>#<id>` (an event or a remediation decision; `nodeKey`
`<tag>#<nodeId>` puts a node's in the `byNode` index), `latest#<subject>` (the time of the subject's latest fact),
`policy` (the remediation policy). `EventWaits` items: a wait key and a task token, expiring with the longest wait;
under `<wait key>#signalled` (`taskToken` `signal`), when an event on the key was last handled (`at`).
"""

from __future__ import annotations

import time as clock
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.dynamo.shared import query_page
from controlplane.adapters.aws.session import client, error_code
from controlplane.core.deadlines import LONGEST_WAIT
from controlplane.core.paging import Page
from controlplane.models.events import EventRecord, RemediationPolicyView

NODE_INDEX = "byNode"
EVENT_PREFIX = "event#"
LATEST_PREFIX = "latest#"
POLICY_KEY = "policy"
SIGNALLED = "#signalled"
SIGNAL_TOKEN = "signal"
# What a token whose wait already ended says when signalled: nothing to do.
ENDED_WAITS = {"TaskTimedOut", "TaskDoesNotExist", "InvalidToken"}


class DynamoEventStore:
    def __init__(self, table: str) -> None:
        self._table = table

    def add(self, record: EventRecord) -> bool:
        item = {
            "cluster": {"S": record.clusterTag},
            "sortKey": {"S": _sort_key(record)},
            "body": {"S": record.model_dump_json(exclude_none=True)},
        }
        if record.instanceId:
            item["nodeKey"] = {"S": f"{record.clusterTag}#{record.instanceId}"}
        try:
            client("dynamodb").put_item(
                TableName=self._table, Item=item, ConditionExpression="attribute_not_exists(sortKey)"
            )
        except ClientError as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def advance(self, cluster_tag: str, subject: str, time: datetime, state: str) -> bool:
        try:
            client("dynamodb").put_item(
                TableName=self._table,
                Item={
                    "cluster": {"S": cluster_tag},
                    "sortKey": {"S": f"{LATEST_PREFIX}{subject}"},
                    "at": {"S": time.isoformat()},
                    "state": {"S": state},
                },
                ConditionExpression="attribute_not_exists(sortKey) OR #at < :at",
                ExpressionAttributeNames={"#at": "at"},
                ExpressionAttributeValues={":at": {"S": time.isoformat()}},
            )
        except ClientError as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def page(self, cluster_tag: str, limit: int, token: str | None, node_id: str | None = None) -> Page[EventRecord]:
        if node_id:
            query: dict[str, Any] = {
                "IndexName": NODE_INDEX,
                "KeyConditionExpression": "nodeKey = :p AND begins_with(sortKey, :e)",
                "ExpressionAttributeValues": {":p": {"S": f"{cluster_tag}#{node_id}"}, ":e": {"S": EVENT_PREFIX}},
            }
            keys: tuple[str, ...] = ("cluster", "sortKey", "nodeKey")
        else:
            query = {
                "KeyConditionExpression": "#c = :p AND begins_with(sortKey, :e)",
                "ExpressionAttributeNames": {"#c": "cluster"},
                "ExpressionAttributeValues": {":p": {"S": cluster_tag}, ":e": {"S": EVENT_PREFIX}},
            }
            keys = ("cluster", "sortKey")
        items, next_token = query_page(self._table, {**query, "ScanIndexForward": False}, keys, limit, token)
        return Page([EventRecord.model_validate_json(item["body"]["S"]) for item in items], next_token)

    def since(self, cluster_tag: str, since: datetime) -> list[EventRecord]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "#c = :p AND sortKey BETWEEN :from AND :to",
            "ExpressionAttributeNames": {"#c": "cluster"},
            "ExpressionAttributeValues": {
                ":p": {"S": cluster_tag},
                ":from": {"S": f"{EVENT_PREFIX}{since.isoformat()}"},
                ":to": {"S": f"{EVENT_PREFIX}~"},
            },
        }
        records = []
        while True:
            response = client("dynamodb").query(**request)
            records += [EventRecord.model_validate_json(item["body"]["S"]) for item in response["Items"]]
            if "LastEvaluatedKey" not in response:
                return records
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def policy(self, cluster_tag: str) -> RemediationPolicyView | None:
        item = (
            client("dynamodb")
            .get_item(TableName=self._table, Key={"cluster": {"S": cluster_tag}, "sortKey": {"S": POLICY_KEY}})
            .get("Item")
        )
        return RemediationPolicyView.model_validate_json(item["body"]["S"]) if item else None

    def save_policy(self, policy: RemediationPolicyView) -> None:
        client("dynamodb").put_item(
            TableName=self._table,
            Item={
                "cluster": {"S": policy.clusterTag},
                "sortKey": {"S": POLICY_KEY},
                "body": {"S": policy.model_dump_json()},
            },
        )

    def forget_cluster(self, cluster_tag: str) -> None:
        """The cluster's remediation policy goes; its events stay, as history."""
        client("dynamodb").delete_item(
            TableName=self._table, Key={"cluster": {"S": cluster_tag}, "sortKey": {"S": POLICY_KEY}}
        )


class DynamoEventWaits:
    def __init__(self, table: str) -> None:
        self._table = table

    def add(self, key: str, token: str, what: str) -> None:
        expires = int(clock.time() + LONGEST_WAIT.total_seconds())
        client("dynamodb").put_item(
            TableName=self._table,
            Item={"waitKey": {"S": key}, "taskToken": {"S": token}, "what": {"S": what}, "ttl": {"N": str(expires)}},
        )

    def take(self, key: str) -> list[str]:
        dynamodb = client("dynamodb")
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "waitKey = :k",
            "ExpressionAttributeValues": {":k": {"S": key}},
        }
        tokens: list[str] = []
        while True:
            response = dynamodb.query(**request)
            tokens += [item["taskToken"]["S"] for item in response["Items"]]
            if "LastEvaluatedKey" not in response:
                break
            request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
        return [token for token in tokens if self.remove(key, token)]

    def remove(self, key: str, token: str) -> bool:
        # The delete that removes the item takes the token: two callers never both wake one wait.
        deleted = client("dynamodb").delete_item(
            TableName=self._table, Key={"waitKey": {"S": key}, "taskToken": {"S": token}}, ReturnValues="ALL_OLD"
        )
        return bool(deleted.get("Attributes"))

    def signal(self, key: str, at: datetime) -> None:
        expires = int(clock.time() + LONGEST_WAIT.total_seconds())
        try:
            client("dynamodb").put_item(
                TableName=self._table,
                Item={
                    "waitKey": {"S": key + SIGNALLED},
                    "taskToken": {"S": SIGNAL_TOKEN},
                    "at": {"S": at.isoformat()},
                    "ttl": {"N": str(expires)},
                },
                ConditionExpression="attribute_not_exists(#at) OR #at < :at",
                ExpressionAttributeNames={"#at": "at"},
                ExpressionAttributeValues={":at": {"S": at.isoformat()}},
            )
        except ClientError as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise

    def signalled(self, key: str) -> datetime | None:
        item = (
            client("dynamodb")
            .get_item(
                TableName=self._table,
                Key={"waitKey": {"S": key + SIGNALLED}, "taskToken": {"S": SIGNAL_TOKEN}},
                ConsistentRead=True,
            )
            .get("Item")
        )
        return datetime.fromisoformat(item["at"]["S"]) if item else None


class StepFunctionsTaskSignal:
    def wake(self, token: str) -> bool:
        try:
            client("stepfunctions").send_task_success(taskToken=token, output='{"woken": true}')
        except ClientError as error:
            if error_code(error) in ENDED_WAITS:
                return False
            raise
        return True


def _sort_key(record: EventRecord) -> str:
    return f"{EVENT_PREFIX}{record.time.isoformat()}#{record.eventId}"
