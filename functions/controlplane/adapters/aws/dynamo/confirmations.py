"""Confirmation tokens of destructive plans: written with the plan, taken (deleted) once by the matching call."""

from __future__ import annotations

from datetime import datetime

from botocore.exceptions import ClientError

from controlplane.adapters.aws.dynamo.shared import conditional_failed
from controlplane.adapters.aws.session import client
from controlplane.core.ports.persistence import Confirmation


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
            if conditional_failed(error):
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
