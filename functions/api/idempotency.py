"""`Idempotency-Key` for mutating routes: Powertools idempotency with DynamoDB persistence.

The key is scoped to the caller and the route; the body is the payload that must match. The
same key and body return the recorded response; another body is refused (409). Powertools'
idempotency is imported by the first request that carries a key, not at cold start.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from controlplane.models.errors import ConflictError
from controlplane.settings import settings

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer, IdempotencyConfig

RECORD_TTL_SECONDS = 24 * 3600
# The Lambda context of the invocation being handled: in-progress records expire with it.
_invocation: dict[str, Any] = {}


class IdempotencyKeyReusedError(ConflictError):
    code = "IdempotencyKeyReused"


class RequestInProgressError(ConflictError):
    code = "RequestInProgress"


@cache
def _persistence() -> DynamoDBPersistenceLayer:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    return DynamoDBPersistenceLayer(table_name=settings().idempotency_table)


@cache
def _config() -> IdempotencyConfig:
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig

    return IdempotencyConfig(
        event_key_jmespath="key",
        payload_validation_jmespath="body",
        expires_after_seconds=RECORD_TTL_SECONDS,
        raise_on_no_idempotency_key=True,
    )


def register_context(context: Any) -> None:
    """Let in-progress records expire with the invocation (Lambda's remaining time)."""
    _invocation["context"] = context


def run_once(key: str | None, scope: str, body: Any, call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run `call` once per (scope, key); without a key, just run it."""
    if not key:
        return call()
    from aws_lambda_powertools.utilities.idempotency import idempotent_function
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
        IdempotencyValidationError,
    )

    config = _config()
    if _invocation.get("context") is not None:
        config.register_lambda_context(_invocation["context"])

    @idempotent_function(data_keyword_argument="request", persistence_store=_persistence(), config=config)
    def mutating_request(request: dict[str, Any]) -> dict[str, Any]:
        return call()

    try:
        return mutating_request(request={"key": f"{scope}#{key}", "body": body})
    except IdempotencyValidationError:
        raise IdempotencyKeyReusedError(
            "This Idempotency-Key was already used with a different request body; use a new key for a new request."
        ) from None
    except IdempotencyAlreadyInProgressError:
        raise RequestInProgressError(
            "A request with this Idempotency-Key is still being processed; retry in a moment for its result."
        ) from None
