"""What a request body must be before a route reads it: JSON text, UTF-8 throughout, and of a sane shape.

Belongs here: the media type a body may have (JSON, compared case-insensitively as RFC 9110 §8.3.1 says media types
are; anything else is 415), checked by each route after the caller is authorized (`check`); the validation of the
body against the route's model, which reads every body as JSON (`BodyValidation`); and the JSON parser every reader
of the body uses (`loads`: the resolver's deserializer and the audit), which refuses what Python's `json` module
would accept but nothing downstream can hold: lone surrogates (no UTF-8 encoding), integers past any field's range
(and past Python's digit limit), `NaN`/`Infinity`, and nesting deeper than any request model. Field rules
(patterns, ranges, required fields, strict numbers) belong to the request models.
"""

from __future__ import annotations

import binascii
import json
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware

from controlplane.models.errors import InvalidRequestError, UnsupportedMediaTypeError

JSON_MEDIA_TYPE = "application/json"
MAX_DEPTH = 32
MAX_INTEGER_DIGITS = 20


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise InvalidRequestError(
            f"The request body has an integer of {len(text)} digits; no field takes more than {MAX_INTEGER_DIGITS}."
        )
    return int(text)


def _constant(name: str) -> float:
    raise InvalidRequestError(f"The request body is not valid JSON: {name} is not a JSON number.")


def _check_value(value: Any) -> None:
    """Walk the parsed body (iteratively: depth is what is being checked) for depth and unencodable text."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise InvalidRequestError(f"The request body is nested more than {MAX_DEPTH} levels deep.")
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, dict):
            for key, child in item.items():
                _check_text(key)
                pending.append((child, depth + 1))
        elif isinstance(item, list):
            pending.extend((child, depth + 1) for child in item)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidRequestError(
            "The request body has a string with a lone surrogate (\\ud800-\\udfff), which is not Unicode text; "
            "send well-formed UTF-8."
        ) from None


def loads(text: str | bytes) -> Any:
    """Parse a request body; a body JSON refuses raises `json.JSONDecodeError`, one we refuse `InvalidRequestError`."""
    try:
        value = json.loads(text, parse_int=_integer, parse_constant=_constant)
    except RecursionError:
        raise InvalidRequestError(f"The request body is nested more than {MAX_DEPTH} levels deep.") from None
    except UnicodeDecodeError:
        raise InvalidRequestError("The request body is not UTF-8 text.") from None
    _check_value(value)
    return value


def check(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[str]:
    """A route's middleware, once the caller is authorized: a body that is not JSON (415) or not UTF-8 text (400) is
    refused here."""
    event = app.current_event
    if event.body:
        declared = event.headers.get("content-type") or ""
        media_type = declared.split(";", 1)[0].strip().lower()
        if media_type and media_type != JSON_MEDIA_TYPE:
            raise UnsupportedMediaTypeError(
                f"This API reads JSON bodies only; send Content-Type: {JSON_MEDIA_TYPE} (got '{media_type[:100]}').",
                {"supported": [JSON_MEDIA_TYPE]},
            )
        try:
            _ = event.decoded_body
        except (UnicodeDecodeError, binascii.Error):
            raise InvalidRequestError("The request body is not UTF-8 text.") from None
    return next_middleware(app)


class BodyValidation(OpenAPIRequestValidationMiddleware):
    """Powertools' request validation, reading every body as JSON: `check` has refused any other media type, and
    Powertools' own choice by media type compares it as written (`APPLICATION/JSON` would be no JSON to it)."""

    def _get_body(self, app: APIGatewayRestResolver) -> Any:  # type: ignore[override]
        return self._parse_json_data(app)
