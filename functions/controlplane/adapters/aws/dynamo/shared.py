"""What the DynamoDB repositories do alike: one page of a Query with an honest token, and telling a conditional
write whose condition failed from any other error."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code
from controlplane.core.paging import decode_token, encode_token, invalid_token


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


def conditional_failed(error: ClientError) -> bool:
    return error_code(error) == "ConditionalCheckFailedException"
