"""Pages of a list: the items and an opaque token for the next page (None on the last page).

Adapters make the tokens of the lists they read (a DynamoDB key, a SageMaker NextToken, an S3 key); lists the core
holds whole page by position with `page_of`; a Kubernetes list passes the API server's own token on. A token that is
not one of ours, or that the API server cannot read, is refused with InvalidRequestError; one the API server no longer
keeps (it does so for about five minutes) with ContinueTokenExpiredError, which says to start again.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from controlplane.models.errors import InvalidRequestError

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_token: str | None = None


def encode_token(position: Any) -> str:
    """An opaque token for a JSON-serializable position."""
    return base64.urlsafe_b64encode(json.dumps(position, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_token(token: str) -> Any:
    """The position `encode_token` wrapped; InvalidRequestError for anything else."""
    try:
        return json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, ValueError) as error:
        raise invalid_token() from error


def invalid_token() -> InvalidRequestError:
    return InvalidRequestError(
        "The continue token is not valid: pass the `continue` value of the previous page unchanged, or omit it to "
        "start from the first page."
    )


class ContinueTokenExpiredError(InvalidRequestError):
    code = "ContinueTokenExpired"


def expired_token() -> ContinueTokenExpiredError:
    return ContinueTokenExpiredError(
        "The continue token has expired: the cluster's Kubernetes API keeps a list's place for about five minutes. "
        "Start again from the first page (omit `continue`)."
    )


def page_of(items: Sequence[T], limit: int, token: str | None) -> Page[T]:
    """A page of a list held whole, by position."""
    start = decode_token(token) if token else 0
    if not isinstance(start, int) or not 0 <= start <= len(items):
        raise invalid_token()
    end = start + limit
    return Page(list(items[start:end]), encode_token(end) if end < len(items) else None)
