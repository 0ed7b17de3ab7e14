"""The tool list says what the REST document says in fewer characters (issue 30, finding 9): schemas that validate the
same arguments, argument wording said once, and what a tool returns named in its description instead of an
outputSchema the model never sees."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from api.app import openapi_document
from mcp_server.compact import compact
from mcp_server.tools import ToolSpec, tools_from_openapi

OPTIONAL_FIELDS = {
    "type": "object",
    "properties": {
        "image": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}], "description": "Image."},
        "mode": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]},
        "count": {"anyOf": [{"type": "integer", "maximum": 10.0}, {"type": "null"}], "examples": [3]},
        "size": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    },
    "required": [],
    "additionalProperties": False,
}
INSTANCES = [
    {},
    {"image": None, "mode": None, "count": None},
    {"image": "abc", "mode": "a", "count": 10},
    {"image": "abcd"},
    {"image": 3},
    {"mode": "c"},
    {"count": 11},
    {"count": 2.5},
    {"size": None},
    {"size": "x"},
    {"other": 1},
]


@pytest.fixture(scope="module")
def specs() -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in tools_from_openapi(openapi_document())}


def test_a_compact_schema_accepts_and_refuses_what_the_original_does():
    original, compacted = Draft202012Validator(OPTIONAL_FIELDS), Draft202012Validator(compact(OPTIONAL_FIELDS))

    assert [compacted.is_valid(instance) for instance in INSTANCES] == [
        original.is_valid(instance) for instance in INSTANCES
    ]
    assert len(json.dumps(compact(OPTIONAL_FIELDS))) < len(json.dumps(OPTIONAL_FIELDS))


def test_an_optional_field_is_one_schema_admitting_null():
    properties = compact(OPTIONAL_FIELDS)["properties"]

    assert properties["image"] == {"type": ["string", "null"], "maxLength": 3, "description": "Image."}
    assert properties["mode"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert properties["count"] == {"type": ["integer", "null"], "maximum": 10}
    assert properties["size"] == OPTIONAL_FIELDS["properties"]["size"]


def test_no_tool_publishes_an_output_schema_and_each_names_its_result_fields(specs):
    listed = [spec.tool().model_dump(by_alias=True, exclude_none=True) for spec in specs.values()]

    assert [tool["name"] for tool in listed if "outputSchema" in tool] == []
    assert "Result fields: continue, clusters." in specs["cluster_list_all"].description
    assert "Result fields: operationId, status, stages" in specs["cluster_create_eks"].description


def test_an_argument_many_tools_share_is_worded_once_and_keeps_its_constraints(specs):
    tag = specs["cluster_get"].input_schema["properties"]["clusterTag"]
    limit = specs["cluster_list_all"].input_schema["properties"]["limit"]

    assert tag == {"type": "string", "pattern": "^[a-z][a-z0-9-]{2,20}$", "description": "Cluster tag."}
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 100, 50)
    assert not Draft202012Validator(specs["cluster_get"].input_schema).is_valid({"clusterTag": "Bad_Tag"})


def test_a_destructive_tool_says_once_how_to_confirm(specs):
    description = specs["cluster_delete"].description

    assert description.count("Show the plan to the person") == 1
    assert len(description) < 700
