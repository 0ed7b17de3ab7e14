"""Lambda entry point of the REST API."""

from typing import Any

from api import app, audit, idempotency


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    idempotency.register_context(context)
    result = app.build().resolve(event, context)
    audit.record(event, result)
    return result
