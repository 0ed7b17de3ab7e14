"""The MCP tool surface, read from the API's own OpenAPI document: parity, schemas, annotations, skills, Kiro."""

from __future__ import annotations

import asyncio
import copy
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT

from api.app import openapi_document
from controlplane.models.operations import TERMINAL_STATUSES
from mcp_server.client import ON_BEHALF_OF, ApiClient
from mcp_server.server import build_server
from mcp_server.tools import CONFIRMATION_NOTE, OPERATION_NOTE, WAIT_TOOL, ToolSpec, tools_from_openapi

ROOT = Path(__file__).resolve().parents[2]
# The seed's names: removing any of these routes from the API must fail a test (adding routes must not).
SEED_TOOLS = {
    "cluster_list_all",
    "cluster_get",
    "cluster_create_eks",
    "cluster_delete",
    "operation_get",
    "operation_list",
    "operation_wait",
    "operation_resume",
    "operation_cancel",
    "cluster_get_status",
    "hyperpod_create",
    "cluster_get_instance_groups",
    "hyperpod_add_instance_group",
    "hyperpod_delete_instance_group",
    "hyperpod_update_software",
    "hyperpod_node_reboot",
    "hyperpod_node_replace",
    "hyperpod_node_delete",
    "hyperpod_get_advanced_features",
    "hyperpod_update_advanced_features",
}


def operation_ids(document: dict[str, Any]) -> set[str]:
    return {operation["operationId"] for item in document["paths"].values() for operation in item.values()}


@pytest.fixture(scope="module")
def specs() -> dict[str, ToolSpec]:
    return {spec.name: spec for spec in tools_from_openapi(openapi_document())}


def test_every_api_operation_is_a_tool_and_every_tool_is_an_api_operation(specs):
    assert set(specs) == operation_ids(openapi_document())


def test_the_seed_tools_are_all_still_served(specs):
    assert set(specs) >= SEED_TOOLS


def test_removing_an_operation_from_the_document_removes_its_tool():
    document = copy.deepcopy(openapi_document())
    del document["paths"]["/clusters/{clusterTag}"]["delete"]
    names = {spec.name for spec in tools_from_openapi(document)}
    assert "cluster_delete" not in names
    assert names == operation_ids(document)


def test_an_operation_without_an_operation_id_is_refused_by_the_translator():
    document = copy.deepcopy(openapi_document())
    del document["paths"]["/clusters"]["get"]["operationId"]
    with pytest.raises(ValueError, match="GET /clusters has no operationId"):
        tools_from_openapi(document)


def test_arguments_flatten_path_query_and_body_into_one_closed_schema(specs):
    schema = specs["cluster_create_eks"].input_schema
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {"clusterTag", "region", "vpcCidr", "kubernetesVersion", "dryRun"}
    assert set(schema["required"]) == {"clusterTag", "region"}
    assert "$ref" not in json.dumps(schema)
    delete = specs["cluster_delete"].input_schema
    assert delete["required"] == ["clusterTag"]
    assert set(delete["properties"]) == {"clusterTag", "confirmationToken", "dryRun"}


def test_every_tool_sets_all_four_annotations_from_its_method(specs):
    for spec in specs.values():
        hints = spec.annotations
        assert None not in (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint)
        assert hints.read_only_hint == (spec.method == "GET"), spec.name
        assert hints.open_world_hint is False
        if spec.method == "DELETE":
            assert hints.destructive_hint and hints.idempotent_hint, spec.name
    assert specs["cluster_create_eks"].annotations.idempotent_hint is False


def test_mutating_tools_name_the_status_tool_and_destructive_ones_ask_for_confirmation(specs):
    # Cancel answers with the cancelled operation, a job's submit (by hand or from a recipe) and delete with the
    # job, the model servers' tools with the server, the pool worker or the completion, a managed endpoint's create,
    # call and delete with the endpoint, a drift check with its report, a remediation policy's put with the policy,
    # a training plan's purchase with the plan, a dev space's tools with the space, task governance's team and
    # scheduler-policy tools with the team or policy; the rest start an operation (node actions included).
    synchronous = {
        "operation_cancel",
        "job_submit",
        "job_submit_from_recipe",
        "job_delete",
        "inference_deploy_container",
        "inference_update_deployment",
        "inference_delete_deployment",
        "inference_call_model",
        "inference_pool_action",
        "cluster_drift_check",
        "inference_endpoint_create",
        "inference_endpoint_call",
        "inference_endpoint_delete",
        "remediation_policy_put",
        "training_plan_create",
        "space_create",
        "space_set_status",
        "space_delete",
        "hyperpod_create_team",
        "hyperpod_update_team",
        "hyperpod_delete_team",
        "hyperpod_put_scheduler_policy",
        "hyperpod_delete_scheduler_policy",
    }
    for spec in specs.values():
        starts_operation = spec.method != "GET" and spec.name not in synchronous
        assert spec.description.endswith(OPERATION_NOTE) == starts_operation, spec.name
        if spec.method != "GET":
            assert (WAIT_TOOL in spec.description) == starts_operation, spec.name
    assert CONFIRMATION_NOTE in specs["cluster_delete"].description
    for name in ("cluster_delete", "hyperpod_delete_instance_group", "hyperpod_node_replace", "hyperpod_node_delete"):
        assert specs[name].annotations.destructive_hint, name


def test_operation_wait_waits_less_than_the_sdk_clients_read_timeout_per_call(specs):
    """The SDK client's default read timeout is 300 s: a 300 s wait ended in ReadTimeout and a dead session."""
    wait = specs[WAIT_TOOL]
    timeout = wait.input_schema["properties"]["timeoutSeconds"]
    assert (timeout["minimum"], timeout["maximum"], timeout["default"]) == (0, 240, 240)
    assert MCP_DEFAULT_SSE_READ_TIMEOUT - timeout["maximum"] >= 60
    assert wait.round_seconds == 25
    assert "call operation_wait again" in wait.description


def test_operation_wait_ends_on_the_terminal_statuses_the_api_declares(specs):
    wait = specs[WAIT_TOOL]
    assert (wait.done_field, wait.done_values) == ("status", TERMINAL_STATUSES)
    assert "until the operation is SUCCEEDED, FAILED or CANCELLED" in wait.description
    assert WAIT_TOOL in OPERATION_NOTE


@pytest.mark.parametrize(
    ("tool", "arguments", "fragment"),
    [
        (
            "cluster_create_eks",
            {"clusterTag": "Bad_Tag", "region": "us-west-2"},
            "clusterTag: 'Bad_Tag' does not match",
        ),
        ("cluster_create_eks", {"clusterTag": "okname"}, "'region' is a required property"),
        ("cluster_create_eks", {"clusterTag": "okname", "region": "us-west-2", "extra": 1}, "'extra' was unexpected"),
        ("cluster_get", {}, "'clusterTag' is a required property"),
        ("operation_wait", {"operationId": "op-12345678", "timeoutSeconds": 301}, "timeoutSeconds: 301 is greater"),
        ("operation_get", {"operationId": "nope"}, "operationId: 'nope' does not match"),
        (
            "cluster_delete",
            {"clusterTag": "demo", "confirmationToken": 7},
            "confirmationToken: 7 is not of type 'string'",
        ),
    ],
)
def test_bad_arguments_get_a_tool_error_naming_the_field_and_never_reach_the_api(specs, tool, arguments, fragment):
    calls: list[httpx.Request] = []
    api = ApiClient("http://api.invalid", "server-token", transport=httpx.MockTransport(calls.append))

    async def call() -> Any:
        async with Client(build_server(list(specs.values()), api)) as client:
            return await client.call_tool(tool, arguments)

    result = asyncio.run(call())
    assert result.is_error
    assert result.structured_content["code"] == "InvalidArguments"
    assert fragment in result.content[0].text
    assert calls == []


def test_every_tool_is_served_and_every_tool_has_a_schema_that_rejects_unknown_arguments(specs):
    api = ApiClient("http://api.invalid", "server-token", transport=httpx.MockTransport(lambda r: httpx.Response(500)))

    async def call_each() -> dict[str, Any]:
        async with Client(build_server(list(specs.values()), api)) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert listed == set(specs)
            return {name: await client.call_tool(name, {"notAnArgument": 1}) for name in listed}

    for name, result in asyncio.run(call_each()).items():
        assert result.is_error, name
        assert "'notAnArgument' was unexpected" in result.content[0].text, name


def test_the_server_calls_the_api_as_itself_and_forwards_the_user_only_as_audit_data(specs):
    seen: list[httpx.Request] = []

    def api_stub(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"clusters": []})

    api = ApiClient("http://api.invalid", "server-token", transport=httpx.MockTransport(api_stub))

    async def call() -> Any:
        async with Client(build_server(list(specs.values()), api, on_behalf_of="alice")) as client:
            return await client.call_tool("cluster_list_all", {})

    assert asyncio.run(call()).structured_content == {"clusters": []}
    assert seen[0].headers["authorization"] == "Bearer server-token"
    assert seen[0].headers[ON_BEHALF_OF] == "alice"


def test_api_errors_become_tool_errors_carrying_the_api_message(specs):
    error = {"code": "ClusterNotFound", "message": "No cluster ghost; call cluster_list_all.", "requestId": "r-1"}
    api = ApiClient("http://api.invalid", "t", transport=httpx.MockTransport(lambda r: httpx.Response(404, json=error)))

    async def call() -> Any:
        async with Client(build_server(list(specs.values()), api)) as client:
            return await client.call_tool("cluster_get", {"clusterTag": "ghost"})

    result = asyncio.run(call())
    assert result.is_error
    assert result.structured_content == error
    lead, _, body = result.content[0].text.partition("\n")
    assert lead == "cluster_get failed (ClusterNotFound): No cluster ghost; call cluster_list_all."
    assert json.loads(body) == error


# --- skills and the Kiro agent: every tool and argument they mention exists and validates ---

SKILLS = sorted((ROOT / "skills").glob("*/SKILL.md"))
TOOL_NAME = re.compile(r"`([a-z]+(?:_[a-z]+)+)`")
JSON_BLOCK = re.compile(r"```json\n(.*?)```", re.DOTALL)


def test_there_is_a_create_cluster_pipeline_skill():
    assert ROOT / "skills/create-cluster-pipeline/SKILL.md" in SKILLS


@pytest.mark.parametrize("skill", SKILLS, ids=lambda path: path.parent.name)
def test_a_skill_has_front_matter_naming_it(skill):
    text = skill.read_text()
    front = text.split("---")[1]
    assert re.search(rf"^name: {skill.parent.name}$", front, re.MULTILINE)
    assert re.search(r"^description: .{40,}$", front, re.MULTILINE)


@pytest.mark.parametrize("skill", SKILLS, ids=lambda path: path.parent.name)
def test_every_tool_a_skill_mentions_exists(skill, specs):
    mentioned = set(TOOL_NAME.findall(skill.read_text()))
    assert mentioned, "a skill should name the tools it uses"
    assert mentioned <= set(specs), f"unknown tools: {sorted(mentioned - set(specs))}"


@pytest.mark.parametrize("skill", SKILLS, ids=lambda path: path.parent.name)
def test_every_tool_call_example_in_a_skill_validates_against_the_tool_schema(skill, specs):
    examples = [json.loads(block) for block in JSON_BLOCK.findall(skill.read_text())]
    assert examples
    for example in examples:
        schema = specs[example["tool"]].input_schema
        problems = [error.message for error in Draft202012Validator(schema).iter_errors(example["arguments"])]
        assert problems == [], example


def test_the_kiro_agent_auto_approves_exactly_the_read_only_tools(specs):
    agent = json.loads((ROOT / ".kiro/agents/hypd-inst-agent.json").read_text())
    assert agent["name"] == "hypd-inst-agent"
    assert agent["mcpServers"]["hypd-inst"]["args"][-1] == "agent-mcp"
    assert "-m mcp_server" in (ROOT / "Makefile").read_text().split("\nagent-mcp:", 1)[1].split("\n\n", 1)[0]
    assert "skill://skills/**/SKILL.md" in agent["resources"]
    read_only = {f"@hypd-inst/{spec.name}" for spec in specs.values() if spec.read_only}
    assert set(agent["allowedTools"]) == read_only


# --- lead sentences, tools not routes, outages: the defects issue 12 reproduces ---


def operation(status: str, **fields: Any) -> dict[str, Any]:
    return {
        "operationId": "op-12345678",
        "kind": "update_instance_group",
        "target": "demo",
        "incarnation": "inc-1",
        "status": status,
        "stages": [{"name": "hyperpod", "status": "RUNNING" if status == "RUNNING" else status}],
        "actor": "alice",
        "createdAt": "2025-01-01T00:00:00Z",
        "updatedAt": "2025-01-01T00:00:00Z",
        "attempt": 1,
        "statusTool": "operation_wait",
        **fields,
    }


def first_line(specs: dict[str, ToolSpec], tool: str, arguments: dict[str, Any], answer: httpx.Response) -> str:
    api = ApiClient("http://api.invalid", "t", transport=httpx.MockTransport(lambda request: answer))

    async def call() -> Any:
        async with Client(build_server(list(specs.values()), api)) as client:
            return await client.call_tool(tool, arguments)

    return str(asyncio.run(call()).content[0].text.split("\n", 1)[0])


PLAN = {
    "dryRun": True,
    "actions": [],
    "confirmationToken": "tok-1",
    "expiresAt": "2025-01-01T00:00:00Z",
    "message": "m",
}


@pytest.mark.parametrize(
    ("tool", "arguments", "answer", "expected"),
    [
        (  # was "Operation op-… is None.": the status sits in the nested operation
            "hyperpod_update_instance_group",
            {"clusterTag": "demo", "name": "gpu", "instanceCount": 2},
            httpx.Response(
                202,
                json={
                    "changes": {"instanceCount": "updated"},
                    "message": "m",
                    "operationId": "op-12345678",
                    "operation": operation("RUNNING"),
                },
            ),
            "Operation op-12345678 started and is RUNNING at stage hyperpod; call operation_wait with "
            "operationId=op-12345678.",
        ),
        (  # was "call again with the same arguments" while dryRun was still true
            "cluster_delete",
            {"clusterTag": "demo", "dryRun": True},
            httpx.Response(200, json=PLAN),
            "Plan only; nothing changed. Show these actions to the person and ask them to confirm; if they agree, "
            "call cluster_delete again with dryRun false and confirmationToken=tok-1.",
        ),
        (  # a node action without a token answers with its plan
            "hyperpod_node_replace",
            {"clusterTag": "demo", "nodeId": "i-0123456789abcdef0"},
            httpx.Response(200, json=PLAN),
            "Plan only; nothing changed. Show these actions to the person and ask them to confirm; if they agree, "
            "call hyperpod_node_replace again with the same arguments and confirmationToken=tok-1.",
        ),
        (  # a change that needs confirmation only for some values is refused with the plan and its token
            "inference_update_deployment",
            {"clusterTag": "demo", "name": "qwen", "replicas": 0},
            httpx.Response(400, json={"code": "ConfirmationRequired", "message": "m", "details": PLAN}),
            "Not done; nothing changed: the person must confirm first. Show the actions in details to the person and "
            "ask them to confirm; if they agree, call inference_update_deployment again with the same arguments and "
            "confirmationToken=tok-1.",
        ),
        (  # a no-op update names no operation
            "hyperpod_update_instance_group",
            {"clusterTag": "demo", "name": "gpu", "instanceCount": 2},
            httpx.Response(200, json={"changes": {"instanceCount": "unchanged"}, "message": "Nothing to change."}),
            "hyperpod_update_instance_group is done: Nothing to change; no operation was started, nothing to wait on.",
        ),
        (
            "operation_wait",
            {"operationId": "op-12345678"},
            httpx.Response(200, json=operation("SUCCEEDED")),
            "Operation op-12345678 SUCCEEDED; next, call cluster_get_instance_groups with clusterTag=demo to see the "
            "groups.",
        ),
        (
            "operation_get",
            {"operationId": "op-12345678"},
            httpx.Response(
                200,
                json=operation(
                    "FAILED",
                    error={"code": "QuotaExceeded", "message": "Quota exceeded.", "step": "Update Instance Group"},
                ),
            ),
            "Operation op-12345678 FAILED at step Update Instance Group: Quota exceeded. Fix the cause, then call "
            "operation_resume with operationId=op-12345678.",
        ),
        (
            "cluster_list_all",
            {},
            httpx.Response(200, json={"clusters": []}),
            "cluster_list_all: 0 clusters on this page.",
        ),
    ],
    ids=["nested-status", "dry-run-plan", "node-plan", "confirmation-asked", "no-op", "succeeded", "failed", "read"],
)
def test_every_result_leads_with_what_happened_and_what_to_call_next(specs, tool, arguments, answer, expected):
    assert first_line(specs, tool, arguments, answer) == expected


def test_api_errors_name_tools_not_rest_routes(specs):
    error = {
        "code": "ClusterNotFound",
        "message": "Cluster 'ghost' is not registered; GET /clusters lists the clusters. "
        "Call DELETE /clusters/ghost/instance-groups/gpu without a token.",
    }
    line = first_line(specs, "cluster_get", {"clusterTag": "ghost"}, httpx.Response(404, json=error))
    assert "GET /clusters" not in line and "DELETE /" not in line
    assert "`cluster_list_all` lists the clusters" in line
    assert "Call `hyperpod_delete_instance_group` without a token" in line


def test_an_unknown_nested_field_is_named(specs):
    arguments = {"clusterTag": "demo", "tieredStorage": {"enabled": True, "bogus": 1}}
    line = first_line(specs, "hyperpod_update_advanced_features", arguments, httpx.Response(500))
    assert "tieredStorage: Additional properties are not allowed ('bogus' was unexpected)" in line
    assert "is not valid under any of the given schemas" not in line


def test_an_api_outage_mid_session_is_a_tool_error_that_says_so(specs):
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    api = ApiClient("http://api.invalid", "t", transport=httpx.MockTransport(down))

    async def call() -> Any:
        async with Client(build_server(list(specs.values()), api)) as client:
            return await client.call_tool("cluster_list_all", {})

    result = asyncio.run(call())
    assert result.is_error
    assert result.structured_content["code"] == "ApiUnavailable"
    assert result.content[0].text.startswith("cluster_list_all failed (ApiUnavailable): The InstantStart API at ")
    assert "call cluster_list_all again" in result.content[0].text


def test_the_kiro_agent_launches_an_installed_command_and_grants_only_its_own_tools():
    agent = json.loads((ROOT / ".kiro/agents/hypd-inst-agent.json").read_text())
    command = agent["mcpServers"]["hypd-inst"]["command"]
    # `make agent-mcp` installs .venv first, so a fresh clone starts the agent (issue 30, finding 10).
    assert command == "make"
    recipe = (ROOT / "Makefile").read_text().split("\nagent-mcp:", 1)[1].split("\n\n", 1)[0]
    assert recipe.index(" install") < recipe.index("$(BIN)/python -m mcp_server")
    assert agent["tools"] == ["@hypd-inst"], "no built-in shell: the prompt forbids shelling out"
    readme = (ROOT / "README.md").read_text()
    for skill in SKILLS:
        assert skill.parent.name in readme, skill.parent.name
