"""A Kubernetes list that continues from the API server's own token: the server's refusals of the token become the
core's paging errors. It answers 400 for a token it cannot read and 410 Gone for one it no longer keeps (a list's
place lasts about five minutes: https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from controlplane.core.paging import expired_token, invalid_token


@contextmanager
def continuing(token: str | None) -> Iterator[None]:
    """Run a list call that passes `token` on: the API server's refusal of it as InvalidRequestError."""
    from kubernetes.client.exceptions import ApiException

    try:
        yield
    except ApiException as error:
        if token and error.status == 410:
            raise expired_token() from None
        if token and error.status == 400:
            raise invalid_token() from None
        raise
