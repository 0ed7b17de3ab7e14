"""The tool list says what an agent needs in fewer characters (issue 30, finding 9): schemas that validate the same
arguments, descriptions that say what a tool does and what to call next, argument wording that says more than the
argument's name, and a model one tool takes whole described in that tool only."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import mcp_types as types
import pytest
from jsonschema import Draft202012Validator
from mcp import Client

from api.app import openapi_document
from mcp_server.client import ApiClient
from mcp_server.compact import NULL, compact
from mcp_server.server import build_server
from mcp_server.tools import CONFIRMATION_NOTE, HINT_DEFAULTS, WRITE_HINTS, ToolSpec, tools_from_openapi

OPTIONAL_FIELDS = {
    "type": "object",
    "properties": {
        "image": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}], "description": "Container to run."},
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


def test_a_compact_schema_accepts_and_refuses_what_the_original_does_but_an_explicit_null():
    original, compacted = Draft202012Validator(OPTIONAL_FIELDS), Draft202012Validator(compact(OPTIONAL_FIELDS))
    explicit_null = {"image": None, "mode": None, "count": None}

    assert [compacted.is_valid(instance) for instance in INSTANCES if instance != explicit_null] == [
        original.is_valid(instance) for instance in INSTANCES if instance != explicit_null
    ]
    assert original.is_valid(explicit_null)
    assert not any(compacted.is_valid({field: None}) for field in explicit_null)
    assert len(json.dumps(compact(OPTIONAL_FIELDS))) < len(json.dumps(OPTIONAL_FIELDS))


def test_an_optional_field_is_its_schema_without_null_and_an_enum_says_its_type():
    properties = compact(OPTIONAL_FIELDS)["properties"]

    assert properties["image"] == {"type": "string", "maxLength": 3, "description": "Container to run."}
    assert properties["mode"] == {"enum": ["a", "b"]}
    assert properties["count"] == {"type": "integer", "maximum": 10}
    assert properties["size"] == OPTIONAL_FIELDS["properties"]["size"]


def test_an_optional_field_whose_default_is_not_null_keeps_null():
    schema = {"anyOf": [{"type": "integer"}, NULL], "default": 5}

    assert Draft202012Validator(compact({"type": "object", "properties": {"count": schema}})).is_valid({"count": None})


def test_the_list_leaves_bounds_and_closed_objects_to_the_server_which_still_checks_them(specs):
    spec = specs["hyperpod_update_instance_group"]
    listed = spec.tool().input_schema

    assert "maximum" not in json.dumps(listed) and 'additionalProperties": false' not in json.dumps(listed)
    assert listed["properties"]["labels"] == {
        "additionalProperties": {"type": "string"},
        "type": "object",
        "description": spec.input_schema["properties"]["labels"]["description"],
    }
    assert spec.input_schema["additionalProperties"] is False
    assert spec.input_schema["properties"]["instanceCount"]["minimum"] == 0
    assert not Draft202012Validator(spec.input_schema).is_valid(
        {"clusterTag": "demo", "name": "g", "instanceCount": -3}
    )


def test_a_description_that_only_repeats_the_tool_name_is_dropped(specs):
    assert "description" not in specs["inference_get_deployment"].input_schema["properties"]["name"]
    assert compact(
        {"type": "object", "properties": {"x": {"type": "string", "description": "Endpoint."}}},
        "inference_endpoint_get",
    )["properties"]["x"] == {"type": "string"}


def test_a_description_that_only_repeats_the_name_its_enum_or_its_field_is_dropped():
    schema = {
        "type": "object",
        "properties": {
            "capacityType": {"type": "string", "enum": ["on-demand", "spot"], "description": "on-demand or spot."},
            "taints": {
                "type": "array",
                "items": {"type": "object", "properties": {"key": {"type": "string", "description": "Taint key."}}},
            },
            "instanceCount": {"type": "integer", "description": "Instances that must come up, at most 10."},
            "name": {"type": "string", "description": "Its name."},
        },
    }

    properties = compact(schema)["properties"]

    assert "description" not in properties["capacityType"]
    assert "description" not in properties["taints"]["items"]["properties"]["key"]
    assert properties["instanceCount"]["description"] == "Instances that must come up, at most 10."
    assert "description" not in properties["name"]


def test_a_description_says_what_the_tool_does_and_what_to_call_next(specs):
    listed = [spec.tool().model_dump(by_alias=True, exclude_none=True) for spec in specs.values()]

    assert [tool["name"] for tool in listed if "outputSchema" in tool] == []
    assert specs["cluster_list_all"].description == "List the clusters this control plane manages."
    assert specs["job_submit_from_recipe"].description == (
        "Submit a training job from a recipe. Then job_wait until the job is done (Succeeded or Failed)."
    )
    assert specs["cluster_create_eks"].description == (
        "Stage 1: create the network and the EKS control plane. Starts an operation: wait with operation_wait."
    )


def test_a_model_one_tool_takes_whole_is_described_in_that_tool_only(specs):
    properties = specs["cluster_create"].input_schema["properties"]

    assert properties["hyperpod"] == {
        "type": "object",
        "description": "Stage 4: the first instance group. `hyperpod_create`'s arguments except clusterTag and dryRun.",
    }
    assert "instanceType" in specs["hyperpod_create"].input_schema["properties"]
    assert specs["cluster_create"].input_schema["required"] == ["clusterTag", "region", "hyperpod"]


def test_an_argument_many_tools_share_says_no_more_than_its_name_and_keeps_its_constraints(specs):
    tag = specs["cluster_get"].input_schema["properties"]["clusterTag"]
    limit = specs["cluster_list_all"].input_schema["properties"]["limit"]

    assert tag == {"type": "string", "pattern": "^[a-z][a-z0-9-]{2,20}$"}
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 100, 50)
    assert not Draft202012Validator(specs["cluster_get"].input_schema).is_valid({"clusterTag": "Bad_Tag"})


def test_a_name_the_agent_copies_from_a_list_is_listed_without_its_pattern_and_a_new_name_with_it(specs):
    def listed(tool: str) -> dict[str, Any]:
        properties: dict[str, Any] = specs[tool].tool().input_schema["properties"]
        return properties

    assert listed("cluster_get")["clusterTag"] == {"type": "string"}
    assert listed("hyperpod_node_reboot")["nodeId"] == {"type": "string"}
    assert listed("cluster_get_available_instances")["region"] == {"type": "string"}
    assert listed("hyperpod_list_cluster_events")["nodeId"] == {"type": "string"}
    assert listed("cluster_create")["clusterTag"]["pattern"] == "^[a-z][a-z0-9-]{2,20}$"
    assert "pattern" in listed("job_submit")["name"]
    assert specs["hyperpod_list_cluster_events"].input_schema["properties"]["nodeId"]["pattern"]


def test_a_malformed_name_is_refused_with_its_pattern_before_the_api_is_called(specs):
    calls: list[httpx.Request] = []
    api = ApiClient("http://api.invalid", "server-token", transport=httpx.MockTransport(calls.append))

    async def call() -> types.CallToolResult:
        async with Client(build_server(list(specs.values()), api)) as client:
            return await client.call_tool("cluster_get", {"clusterTag": "My_Cluster"})

    result = asyncio.run(call())

    assert result.is_error and result.structured_content == {
        "code": "InvalidArguments",
        "message": "Invalid arguments for cluster_get: clusterTag: 'My_Cluster' does not match "
        "'^[a-z][a-z0-9-]{2,20}$'. Fix them and call again.",
        "details": {"errors": ["clusterTag: 'My_Cluster' does not match '^[a-z][a-z0-9-]{2,20}$'"]},
    }
    assert calls == []


def test_a_flag_is_listed_without_its_false_default_which_the_server_keeps(specs):
    listed = specs["hyperpod_put_scheduler_policy"].tool().input_schema["properties"]
    checked = specs["hyperpod_put_scheduler_policy"].input_schema["properties"]

    assert listed["dryRun"] == {"type": "boolean"}
    assert checked["dryRun"] == {"type": "boolean", "default": False}
    assert listed["fairShare"] == {"type": "boolean", "default": True}


def test_a_destructive_tool_says_once_how_to_confirm(specs):
    description = specs["cluster_delete"].description

    assert description.count(CONFIRMATION_NOTE) == 1
    assert len(description) < 700


def test_a_model_taken_whole_by_a_tool_without_path_or_query_arguments_is_referred_to_by_that_tool():
    def body(model: str) -> dict[str, object]:
        schema = {"$ref": f"#/components/schemas/{model}"}
        return {"required": True, "content": {"application/json": {"schema": schema}}}

    document = {
        "paths": {
            "/options": {"post": {"operationId": "options_set", "requestBody": body("Options")}},
            "/runs": {"post": {"operationId": "run_start", "requestBody": body("Run")}},
        },
        "components": {
            "schemas": {
                "OperationStatus": {"x-terminal": ["SUCCEEDED"]},
                "Options": {"type": "object", "properties": {"size": {"type": "integer"}}},
                "Run": {
                    "type": "object",
                    "properties": {"options": {"$ref": "#/components/schemas/Options", "description": "How."}},
                },
            }
        },
    }

    specs = {spec.name: spec for spec in tools_from_openapi(document)}

    assert specs["run_start"].input_schema["properties"]["options"] == {
        "type": "object",
        "description": "How. `options_set`'s arguments.",
    }
    assert specs["options_set"].input_schema["properties"] == {"size": {"type": "integer"}}


def test_the_list_carries_only_the_hints_that_differ_from_the_specifications_defaults(specs):
    def hints(name: str) -> dict[str, object]:
        return specs[name].tool().annotations.model_dump(by_alias=True, exclude_none=True)

    assert hints("cluster_get") == {"readOnlyHint": True, "openWorldHint": False}
    assert hints("cluster_delete") == {"idempotentHint": True, "openWorldHint": False}
    assert hints("cluster_create_eks") == {"destructiveHint": False, "openWorldHint": False}
    for spec in specs.values():
        listed = spec.tool().annotations
        for hint, default in HINT_DEFAULTS.items():
            value = getattr(listed, hint)
            if spec.read_only and hint in WRITE_HINTS:
                assert value is None, spec.name
            else:
                assert (default if value is None else value) == getattr(spec.annotations, hint), (spec.name, hint)
