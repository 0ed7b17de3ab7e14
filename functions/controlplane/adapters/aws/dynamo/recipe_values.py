"""The values each caller last submitted a recipe with, offered as the recipe form's defaults next time."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from controlplane.adapters.aws.session import client


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
