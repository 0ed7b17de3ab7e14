"""The query parameters every list route shares (`limit`, `continue`), and the refusal of any other one.

A list route declares `Limit` and `Continue` and calls `refuse_unknown_parameters` first, so a misspelt filter or a
paging parameter under another name (`nextToken`, `pageSize`) is a 400 that names the allowed ones, never ignored.
"""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from controlplane.models.common import CONTINUE_DESCRIPTION, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from controlplane.models.errors import InvalidRequestError

PAGING_PARAMETERS = ("limit", "continue")

Limit = Annotated[
    int,
    Query(
        ge=1, le=MAX_PAGE_SIZE, description=f"Items per page (default {DEFAULT_PAGE_SIZE}, at most {MAX_PAGE_SIZE})."
    ),
]
Continue = Annotated[
    str | None, Query(alias="continue", description=f"The `continue` of the previous page. {CONTINUE_DESCRIPTION}")
]


def refuse_unknown_parameters(router: Router, *allowed: str) -> None:
    """InvalidRequestError naming the allowed parameters when the request carries any other one."""
    known = (*allowed, *PAGING_PARAMETERS)
    unknown = sorted(set(router.current_event.query_string_parameters or {}) - set(known))
    if unknown:
        raise InvalidRequestError(
            f"Unknown query parameter(s): {', '.join(unknown)}. This route takes: {', '.join(known)}.",
            {"unknown": unknown, "allowed": list(known)},
        )
