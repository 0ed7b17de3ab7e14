"""`Idempotency-Key` for mutating routes: Powertools idempotency with DynamoDB persistence.

The key is scoped to the caller and the route; the body is the payload that must match. The
same key and body return the recorded response; another body is refused (409).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)

from controlplane.settings import settings

RECORD_TTL_SECONDS = 24 * 3600


@cache
def _persistence() -> DynamoDBPersistenceLayer:
    return DynamoDBPersistenceLayer(table_name=settings().idempotency_table)


@cache
def _config() -> IdempotencyConfig:
    return IdempotencyConfig(
        event_key_jmespath="key",
        payload_validation_jmespath="body",
        expires_after_seconds=RECORD_TTL_SECONDS,
        raise_on_no_idempotency_key=True,
    )


def register_context(context: Any) -> None:
    """Let in-progress records expire with the invocation (Lambda's remaining time)."""
    if context is not None:
        _config().register_lambda_context(context)


def run_once(key: str | None, scope: str, body: Any, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run `call` once per (scope, key); without a key, just run it."""
    if not key:
        return call()

    @idempotent_function(data_keyword_argument="request", persistence_store=_persistence(), config=_config())
    def mutating_request(request: dict[str, Any]) -> dict[str, Any]:
        return call()

    return mutating_request(request={"key": f"{scope}#{key}", "body": body})
