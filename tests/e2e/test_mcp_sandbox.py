"""The MCP server against the running sandbox, through the official SDK client: both transports, auth, a replay."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from api.app import openapi_document
from controlplane import wiring
from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi
from sandbox.runtime import MCP_CALLER_ARN
from tests.inventory import stage1_inventory

ROOT = Path(__file__).resolve().parents[2]


LEAD = re.compile(r"^[A-Z`a-z][^\n{}]*[.]$")


def assert_leads(result: types.CallToolResult) -> None:
    """A result starts with one sentence (what happened, what to call next), then the JSON body."""
    lead, _, body = result.content[0].text.partition("\n")
    assert LEAD.match(lead), lead
    assert body.startswith("{"), body[:80]


def http_client(running_sandbox: Any, token: str) -> Client:
    headers = {"Authorization": f"Bearer {token}"}
    return Client(
        streamable_http_client(f"{running_sandbox.base_url}/mcp", http_client=httpx2.AsyncClient(headers=headers))
    )


def test_the_remote_endpoint_refuses_calls_without_a_valid_token_and_points_to_its_metadata(running_sandbox):
    base = running_sandbox.base_url
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"Authorization": "Bearer forged"}):
        response = httpx.post(f"{base}/mcp", json=initialize, headers=headers)
        assert response.status_code == 401
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith("Bearer ")
        assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge
    metadata = httpx.get(f"{base}/.well-known/oauth-protected-resource/mcp").json()
    assert metadata["resource"] == f"{base}/mcp"
    assert metadata["bearer_methods_supported"] == ["header"]
    assert "authorization_servers" in metadata


def listed_over_http(running_sandbox: Any, token: str) -> list[types.Tool]:
    async def listed() -> list[types.Tool]:
        async with http_client(running_sandbox, token) as client:
            return list((await client.list_tools()).tools)

    return asyncio.run(listed())


def test_tools_over_streamable_http_are_the_api_operations(running_sandbox):
    expected = {op["operationId"] for item in openapi_document()["paths"].values() for op in item.values()}
    assert {tool.name for tool in listed_over_http(running_sandbox, "sandbox-admin")} == expected


def test_a_viewer_is_offered_only_the_read_only_tools_on_both_transports(running_sandbox):
    """The API's route → role table decides: a viewer's tools/list offers no mutating tool (stdio and HTTP), and
    no read a viewer may not make (the audit trail)."""
    read_only = {
        op["operationId"]
        for item in openapi_document()["paths"].values()
        for method, op in item.items()
        if method == "get" and op["x-required-role"] == "viewer"
    }
    assert "audit_list" not in read_only
    over_http = listed_over_http(running_sandbox, "sandbox-viewer")
    assert {tool.name for tool in over_http} == read_only
    assert all(tool.annotations.read_only_hint for tool in over_http)
    over_stdio, _ = stdio_session(running_sandbox, "sandbox-viewer")
    assert over_stdio == read_only
    operator = {tool.name for tool in listed_over_http(running_sandbox, "sandbox-operator")}
    assert (
        read_only
        < operator
        < {op["operationId"] for item in openapi_document()["paths"].values() for op in item.values()}
    )
    assert "hyperpod_node_reboot" in operator and "cluster_delete" not in operator


def test_a_viewer_through_mcp_keeps_the_viewer_role_and_creates_nothing(running_sandbox):
    async def create() -> types.CallToolResult:
        async with http_client(running_sandbox, "sandbox-viewer") as client:
            return await client.call_tool("cluster_create_eks", {"clusterTag": "mcpviewer", "region": "us-west-2"})

    result = asyncio.run(create())
    assert result.is_error
    assert result.structured_content["code"] == "Forbidden"
    assert stage1_inventory("mcpviewer")["vpcs"] == 0
    # The API saw the server's own identity, acting for the verified viewer.
    (entry,) = wiring.audit_log().list_for_target("mcpviewer")
    assert (entry.actor, entry.onBehalfOf, entry.role, entry.outcome) == (
        MCP_CALLER_ARN,
        "sandbox-viewer",
        "viewer",
        "403",
    )


def test_bad_arguments_over_http_are_a_tool_error_and_create_nothing(running_sandbox):
    async def create() -> types.CallToolResult:
        async with http_client(running_sandbox, "sandbox-admin") as client:
            return await client.call_tool("cluster_create_eks", {"clusterTag": "mcpbad", "region": "mars"})

    result = asyncio.run(create())
    assert result.is_error
    assert "region: 'mars' does not match" in result.content[0].text
    assert stage1_inventory("mcpbad")["vpcs"] == 0


def stdio_parameters(running_sandbox: Any, token: str, api_url: str | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_server", "--api-url", api_url or f"{running_sandbox.base_url}/api"],
        env={"INSTANTSTART_API_TOKEN": token, "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=ROOT,
    )


def stdio_session(running_sandbox: Any, token: str) -> tuple[set[str], types.CallToolResult]:
    async def session() -> tuple[set[str], types.CallToolResult]:
        async with Client(stdio_parameters(running_sandbox, token)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            return names, await client.call_tool("cluster_list_all", {})

    return asyncio.run(session())


def test_the_stdio_server_lists_the_tools_and_calls_the_api(running_sandbox):
    names, result = stdio_session(running_sandbox, "sandbox-admin")
    assert {"cluster_list_all", "cluster_create_eks", "operation_wait"} <= names
    assert not result.is_error
    assert "clusters" in result.structured_content


def test_the_seed_conversation_completes_through_tools_alone(running_sandbox):
    """cluster_list_all → cluster_create_eks → operation_wait → cluster_get → delete (plan, confirm) → wait."""
    calls: list[str] = []
    progress: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async def conversation() -> dict[str, Any]:
        document = (await ApiClient(f"{running_sandbox.base_url}/api", "sandbox-admin").openapi_document()).document
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-admin")
        async with Client(build_server(tools_from_openapi(document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                calls.append(name)
                result = await client.call_tool(name, arguments, progress_callback=on_progress)
                assert not result.is_error, result.content
                assert_leads(result)
                return dict(result.structured_content)

            async def wait(operation_id: str) -> dict[str, Any]:
                while (operation := await tool("operation_wait", {"operationId": operation_id}))["status"] in (
                    "PENDING",
                    "RUNNING",
                ):
                    pass
                return operation

            await tool("cluster_list_all", {})
            started = await tool("cluster_create_eks", {"clusterTag": "mcpseed", "region": "us-west-2"})
            assert started["statusTool"] == "operation_wait"
            created = await wait(started["operationId"])
            cluster = await tool("cluster_get", {"clusterTag": "mcpseed"})
            plan = await tool("cluster_delete", {"clusterTag": "mcpseed"})
            forged = await client.call_tool("cluster_delete", {"clusterTag": "mcpseed", "confirmationToken": "forged"})
            assert forged.is_error, forged.content
            before_confirm = stage1_inventory("mcpseed")
            deletion = await tool(
                "cluster_delete", {"clusterTag": "mcpseed", "confirmationToken": plan["confirmationToken"]}
            )
            deleted = await wait(deletion["operationId"])
            return {"created": created, "cluster": cluster, "plan": plan, "kept": before_confirm, "deleted": deleted}

    outcome = asyncio.run(conversation())
    assert outcome["created"]["status"] == "SUCCEEDED"
    assert outcome["cluster"]["clusterTag"] == "mcpseed"
    assert outcome["plan"]["actions"] and outcome["kept"]["vpcs"] == 1
    assert outcome["deleted"]["status"] == "SUCCEEDED"
    assert stage1_inventory("mcpseed")["vpcs"] == 0
    # One operation_wait call per operation: the server repeats the API's long poll, not the agent.
    assert calls.count("operation_wait") == 2, calls
    assert len(calls) == 7, calls
    assert progress and all(message.startswith("op-") for message in progress), progress
    assert any("SUCCEEDED" in message for message in progress), progress
    print(f"\nreplay tool calls ({len(calls)}): {calls}")


def test_the_seed_cluster_conversation_reaches_a_ready_gpu_node_through_tools_alone(running_sandbox):
    """Inspect, then stage by stage: EKS, dependencies, HyperPod (us-west-2c, one ml.g6.4xlarge), storage, status."""
    calls: list[str] = []

    async def conversation() -> dict[str, Any]:
        document = (await ApiClient(f"{running_sandbox.base_url}/api", "sandbox-admin").openapi_document()).document
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-admin")
        async with Client(build_server(tools_from_openapi(document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                calls.append(name)
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                assert_leads(result)
                return dict(result.structured_content)

            async def run(name: str, arguments: dict[str, Any]) -> str:
                operation = await tool(name, arguments)
                while (operation := await tool("operation_wait", {"operationId": operation["operationId"]}))[
                    "status"
                ] in ("PENDING", "RUNNING"):
                    pass
                return str(operation["status"])

            await tool("cluster_list_all", {})
            outcomes = [await run("cluster_create_eks", {"clusterTag": "mcpfull", "region": "us-west-2"})]
            await tool("cluster_get", {"clusterTag": "mcpfull"})
            outcomes.append(await run("cluster_configure_dependencies", {"clusterTag": "mcpfull"}))
            zones = await tool("cluster_get_availability_zones", {"region": "us-west-2"})
            offered = await tool(
                "cluster_get_available_instances", {"region": "us-west-2", "availabilityZone": "us-west-2c"}
            )
            assert "us-west-2c" in [zone["name"] for zone in zones["availabilityZones"]]
            assert "ml.g6.4xlarge" in [t["instanceType"] for t in offered["instanceTypes"]]
            outcomes.append(
                await run(
                    "hyperpod_create",
                    {
                        "clusterTag": "mcpfull",
                        "availabilityZone": "us-west-2c",
                        "instanceType": "ml.g6.4xlarge",
                        "instanceCount": 1,
                    },
                )
            )
            outcomes.append(await run("s3_storage_create", {"clusterTag": "mcpfull"}))
            status = await tool("cluster_get_status", {"clusterTag": "mcpfull"})
            return {"outcomes": outcomes, "status": status}

    result = asyncio.run(conversation())
    assert result["outcomes"] == ["SUCCEEDED"] * 4
    assert result["status"]["ready"] is True
    assert (result["status"]["nodesReady"], result["status"]["gpusTotal"]) == (1, 1)
    assert calls.count("operation_wait") == 4, calls
    print(f"\nseed cluster conversation: {len(calls)} tool calls: {calls}")


def test_the_seed_features_conversation_enables_two_features_in_one_call_through_tools_alone(running_sandbox):
    """On a ready cluster: read the panel, enable tiered storage and the training operator together, wait, verify."""
    running_sandbox.build_cluster("mcpfeat")
    calls: list[str] = []

    async def conversation() -> dict[str, Any]:
        document = (await ApiClient(f"{running_sandbox.base_url}/api", "sandbox-admin").openapi_document()).document
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-admin")
        async with Client(build_server(tools_from_openapi(document), api)) as client:

            async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                calls.append(name)
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                assert_leads(result)
                return dict(result.structured_content)

            before = await tool("hyperpod_get_advanced_features", {"clusterTag": "mcpfeat"})
            started = await tool(
                "hyperpod_update_advanced_features",
                {
                    "clusterTag": "mcpfeat",
                    "tieredStorage": {"enabled": True, "configMode": "default"},
                    "trainingOperator": {"enabled": True},
                },
            )
            operation = await tool("operation_wait", {"operationId": started["operationId"]})
            while operation["status"] in ("PENDING", "RUNNING"):
                operation = await tool("operation_wait", {"operationId": started["operationId"]})
            after = await tool("hyperpod_get_advanced_features", {"clusterTag": "mcpfeat"})
            return {"before": before, "started": started, "operation": operation, "after": after}

    result = asyncio.run(conversation())
    assert not result["before"]["features"]["tieredStorage"]["enabled"]
    assert not result["before"]["features"]["trainingOperator"]["enabled"]
    assert {name: outcome["outcome"] for name, outcome in result["started"]["features"].items()} == {
        "tieredStorage": "enabled",
        "trainingOperator": "enabled",
    }
    assert result["operation"]["status"] == "SUCCEEDED"
    assert [stage["name"] for stage in result["operation"]["stages"]] == ["tieredStorage", "trainingOperator"]
    assert result["after"]["features"]["tieredStorage"]["enabled"] is True
    assert result["after"]["features"]["trainingOperator"]["enabled"] is True
    assert calls == [
        "hyperpod_get_advanced_features",
        "hyperpod_update_advanced_features",
        "operation_wait",
        "hyperpod_get_advanced_features",
    ]
    print(f"\nseed features conversation: {len(calls)} tool calls: {calls}")


@pytest.mark.parametrize(
    ("token", "api_path", "fragment"),
    [
        ("forged", "/api", "refused the token (401)"),
        ("sandbox-admin", "/api/nothing-here", "refused the token (404)"),
        # Any other path of the sandbox is the console (as CloudFront serves it): HTML, not the API.
        ("sandbox-admin", "/nothing-here", "is not the InstantStart API"),
    ],
)
def test_the_stdio_server_with_a_refused_token_says_why_in_one_line_and_exits_non_zero(
    running_sandbox, token, api_path, fragment
):
    parameters = stdio_parameters(running_sandbox, token, f"{running_sandbox.base_url}{api_path}")
    run = subprocess.run(
        [parameters.command, *parameters.args], env=parameters.env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert run.returncode != 0
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.startswith("hypd-inst: ") and fragment in run.stderr


def test_the_stdio_server_with_an_unreachable_api_says_so_in_one_line_and_exits_non_zero(running_sandbox):
    parameters = stdio_parameters(running_sandbox, "sandbox-admin", "http://127.0.0.1:9/api")
    run = subprocess.run(
        [parameters.command, *parameters.args], env=parameters.env, cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert run.returncode != 0
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert "cannot reach the InstantStart API at http://127.0.0.1:9/api" in run.stderr


def test_a_long_operation_waited_through_streamable_http_with_default_client_settings(running_sandbox):
    """The sandbox's /mcp with the SDK's default client: SSE progress arrives, the wait ends at completion (≤ 5 s
    late), and one call suffices (the server's cap, 240 s, is below the client's 300 s read timeout)."""
    progress: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async def waited() -> tuple[list[types.CallToolResult], float]:
        async with http_client(running_sandbox, "sandbox-admin") as client:
            started = await client.call_tool("cluster_create_eks", {"clusterTag": "mcplong", "region": "us-west-2"})
            operation_id = started.structured_content["operationId"]
            waits = [
                await client.call_tool("operation_wait", {"operationId": operation_id}, progress_callback=on_progress)
            ]
            while waits[-1].structured_content["status"] in ("PENDING", "RUNNING"):
                waits.append(
                    await client.call_tool(
                        "operation_wait", {"operationId": operation_id}, progress_callback=on_progress
                    )
                )
            return waits, time.time()

    waits, returned_at = asyncio.run(waited())
    final = waits[-1].structured_content
    assert final["status"] == "SUCCEEDED"
    assert len(waits) == 1
    assert waits[-1].content[0].text.startswith(f"Operation {final['operationId']} SUCCEEDED")
    ended = datetime.fromisoformat(final["updatedAt"].replace("Z", "+00:00")).timestamp()
    assert returned_at - ended <= 5
    assert progress and all(message.startswith("op-") for message in progress), progress


def test_a_wait_that_runs_out_says_where_the_operation_stands_and_to_call_again(running_sandbox, monkeypatch):
    """A server whose cap is shorter than the operation: each wait ends with the stage and the call to make."""
    cap = 2
    # The EKS cluster takes two caps to settle, however short the suite makes the sandbox's timings.
    monkeypatch.setattr(running_sandbox.sandbox.eks, "seconds", 2 * cap)

    async def waited() -> list[types.CallToolResult]:
        api_url = f"{running_sandbox.base_url}/api"
        document = (await ApiClient(api_url, "sandbox-admin").openapi_document()).document
        server = build_server(tools_from_openapi(document), ApiClient(api_url, "sandbox-admin"), max_wait_seconds=cap)
        async with Client(server) as client:
            started = await client.call_tool("cluster_create_eks", {"clusterTag": "mcpcap", "region": "us-west-2"})
            operation_id = started.structured_content["operationId"]
            waits = [await client.call_tool("operation_wait", {"operationId": operation_id})]
            while waits[-1].structured_content["status"] in ("PENDING", "RUNNING"):
                waits.append(await client.call_tool("operation_wait", {"operationId": operation_id}))
            return waits

    begun = time.monotonic()
    waits = asyncio.run(waited())
    elapsed = time.monotonic() - begun
    assert waits[-1].structured_content["status"] == "SUCCEEDED"
    assert len(waits) >= 2, "the operation should outlast one capped wait"
    assert len(waits) <= elapsed / cap + 1  # no call returns early: at most one wait per cap, plus the last
    for result in waits[:-1]:
        lead = result.content[0].text.split("\n", 1)[0]
        assert re.fullmatch(
            rf"Operation op-\S+ is still (PENDING|RUNNING)( at stage \S+)? after {cap} s — call operation_wait again "
            r"with operationId=op-\S+\.",
            lead,
        ), lead
