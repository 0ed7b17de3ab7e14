"""Lambda entry point of the REST API."""

from typing import Any

from api import app


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.build().resolve(event, context)
