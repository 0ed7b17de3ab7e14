"""Lambda entry point of the REST API.

Init imports the request machinery every request uses (`api.app`: error mapping, authorization, validation,
audit); each router module, with its models, is imported by the first request whose path it serves.
"""

from typing import Any

from api import app
from controlplane.observability import flushing_metrics


@flushing_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.handle(event, context)
