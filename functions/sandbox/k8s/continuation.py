"""A list's ``continue`` token as the API server treats it: where the next page starts and when the list began; a
token it never made is a 400 and one older than its lifetime a 410 Gone
(https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks)."""

from __future__ import annotations

import base64
import binascii
import json
import time

from sandbox.k8s.errors import ApiError, bad_request


def continue_token(namespace: str, name: str, issued: float) -> str:
    """A list's ``continue``: where the next page starts (after this key), and when the list's first page was read
    (its place is kept for that long, as the API server keeps the list's revision)."""
    return base64.urlsafe_b64encode(json.dumps([namespace, name, issued]).encode()).decode()


def continue_key(token: str | None, lifetime: float) -> tuple[tuple[str, str] | None, float]:
    """(the key the page starts after, when the list began) of a request's ``continue``: 400 for a token the server
    never made, 410 Gone for one older than ``lifetime`` (as the API server answers both)."""
    if not token:
        return None, time.monotonic()
    try:
        namespace, name, issued = json.loads(base64.urlsafe_b64decode(token))
        issued = float(issued)
    except (binascii.Error, ValueError, TypeError) as error:
        raise bad_request(f"invalid continue token: {error}") from None
    if time.monotonic() - issued > lifetime:
        raise ApiError(
            410,
            "Expired",
            "The provided continue parameter is too old to display a consistent list result. You can start a new "
            "list without the continue parameter.",
        )
    return (str(namespace), str(name)), issued
