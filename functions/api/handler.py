"""Lambda entry point of the REST API.

Importing it loads nothing of the project: the request machinery (`api.app`: error mapping, authorization,
validation, audit) is imported by the first request, and each router module by the first request whose path it
serves, so a cold start pays for the one router its request needs, not for every router's models.
"""

from typing import Any


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    from api import app  # on first use: see the module docstring

    return app.handle(event, context)
