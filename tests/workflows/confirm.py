"""Destructive requests as a caller whose person agreed to the plan, for the tests that drive the sandbox's REST API."""

from __future__ import annotations

import httpx


def confirmed(
    api: httpx.Client, method: str, path: str, json: dict | None = None, *, plan_required: bool = True
) -> httpx.Response:
    """Send the request; its first answer is the plan and a single-use token, so send it again with the token.

    With `plan_required=False` (a request destructive only sometimes, like a features PATCH), an answer without a
    token is returned as it is.
    """
    first = api.request(method, path, json=json)
    token = first.json().get("confirmationToken") if first.status_code == 200 else None
    if plan_required:
        assert token, first.text
    if not token:
        return first
    return api.request(method, path, json=json, params={"confirmationToken": token})
