"""Every published tool schema is JSON Schema (Draft 2020-12): it passes the metaschema, uses only the
specification's keywords where each applies, and refuses what the API refuses (issue 30, finding 7)."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from api.app import openapi_document
from mcp_server.tools import ToolSpec, tools_from_openapi

# The keywords of the Draft 2020-12 vocabularies (core, applicator, validation, meta-data, format, content).
KEYWORDS = frozenset(
    [
        "$schema",
        "$id",
        "$ref",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$vocabulary",
        "$comment",
        "$defs",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "prefixItems",
        "items",
        "contains",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "type",
        "const",
        "enum",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "title",
        "description",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "examples",
        "format",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
    ]
)
# Keywords that apply to one instance type only: on a schema of another type they are ignored, so the limit they
# seem to set is not enforced.
APPLIES_TO = {
    "maxLength": "string",
    "minLength": "string",
    "pattern": "string",
    "maxItems": "array",
    "minItems": "array",
    "uniqueItems": "array",
    "maxProperties": "object",
    "minProperties": "object",
    "minimum": ("integer", "number"),
    "maximum": ("integer", "number"),
}
SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SUBSCHEMAS = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")


def problems(schema: Any, where: str = "") -> list[str]:
    """Every keyword outside the specification, or on a schema of a type it does not apply to."""
    if not isinstance(schema, dict):
        return []
    found = [f"{where or '/'}: unknown keyword {key!r}" for key in schema if key not in KEYWORDS]
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    for keyword, applies in APPLIES_TO.items():
        # A nullable schema (`type: [X, "null"]`) may carry X's keywords: null passes them, as it should.
        if (
            keyword in schema
            and kind is not None
            and not kinds & set(applies if isinstance(applies, tuple) else (applies,))
        ):
            found.append(f"{where or '/'}: {keyword} on a schema of type {kind}")
    for key in SUBSCHEMA_MAPS:
        for name, sub in schema.get(key, {}).items():
            found += problems(sub, f"{where}/{key}/{name}")
    for key in SUBSCHEMA_LISTS:
        for index, sub in enumerate(schema.get(key, [])):
            found += problems(sub, f"{where}/{key}/{index}")
    for key in SUBSCHEMAS:
        found += problems(schema.get(key), f"{where}/{key}")
    return found


@pytest.fixture(scope="module")
def specs() -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in tools_from_openapi(openapi_document())}


def test_every_published_schema_is_draft_2020_12_with_only_its_keywords(specs):
    found = []
    for name, spec in specs.items():
        schema = spec.input_schema
        found += [
            f"{name}: {error.message}"
            for error in Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(schema)
        ]
        found += [f"{name} {problem}" for problem in problems(schema)]
    assert found == []


@pytest.mark.parametrize(
    "arguments",
    [
        {"instanceCount": -3},
        {"minInstanceCount": -1},
        {"instanceCount": 10**6},
        {"labels": {f"k{index}": "v" for index in range(51)}},
    ],
)
def test_the_published_schema_refuses_what_the_api_refuses(specs, arguments):
    schema = specs["hyperpod_update_instance_group"].input_schema
    assert not Draft202012Validator(schema).is_valid({"clusterTag": "demo", "name": "workers", **arguments})
    assert Draft202012Validator(schema).is_valid({"clusterTag": "demo", "name": "workers", "instanceCount": 3})
