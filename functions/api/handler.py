"""Lambda entry point of the REST API."""

from typing import Any

from api import app, audit, body, errors, idempotency


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    idempotency.register_context(context)
    refused = body.refusal(event)
    result = errors.refusal(event, refused) if refused else app.build().resolve(event, context)
    audit.record(event, result)
    return result
