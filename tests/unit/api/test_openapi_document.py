"""The OpenAPI document is generated once per process (a quarter of a second of schema building per request
before), and each caller still gets a copy of its own."""

from __future__ import annotations

from typing import Any

import pytest
from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from api.app import openapi_document


def test_the_document_is_built_once_and_each_caller_gets_its_own_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    first = openapi_document()

    def built_again(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("the OpenAPI document was generated a second time")

    monkeypatch.setattr(APIGatewayRestResolver, "get_openapi_json_schema", built_again)
    first["paths"].clear()
    second = openapi_document()
    assert second["paths"]
    assert all("x-required-role" in operation for path in second["paths"].values() for operation in path.values())
