"""Serves tool specs as an MCP server (the SDK's low-level `Server`): list, validate, call, wait.

Belongs here: argument validation against each tool's schema, turning API responses into tool
results (errors as `isError` results carrying the API's `{code, message, details}`), and the
`operation_wait` loop that repeats the API's long poll and reports progress. Transports live in
`http` and `__main__`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from mcp_server.client import ApiClient, ApiResponse
from mcp_server.tools import MAX_WAIT_SECONDS, TERMINAL_STATUSES, WAIT_TOOL, ToolSpec

SERVER_NAME = "hypd-inst"
INSTRUCTIONS = (
    "Tools of the InstantStart control plane for SageMaker HyperPod on EKS. Every call names its clusterTag; "
    "there is no active cluster. Long-running tools return an operationId: call operation_wait until the status "
    "is SUCCEEDED, FAILED or CANCELLED (one call waits up to {max_wait} seconds). A FAILED operation is resumed with "
    "operation_resume once its cause is fixed. Destructive tools first return a plan and a confirmationToken: "
    "show the plan to the person and repeat the call with the token only after they confirm."
)

Context = ServerRequestContext[Any, Any]


def build_server(
    specs: Sequence[ToolSpec],
    api: ApiClient,
    on_behalf_of: str | None = None,
    *,
    max_wait_seconds: int = MAX_WAIT_SECONDS,
) -> Server[Any]:
    """An MCP server whose tools are `specs`, calling `api`.

    `on_behalf_of` is the verified user's audit header; `max_wait_seconds` caps one operation_wait call
    (the remote server on Lambda answers within API Gateway's 29 s, so it waits less than the tool allows).
    """
    by_name = {spec.name: spec for spec in specs}
    validators = {spec.name: Draft202012Validator(spec.input_schema) for spec in specs}

    async def list_tools(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[spec.tool() for spec in specs])

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = by_name.get(params.name)
        if spec is None:
            return _error("UnknownTool", f"There is no tool {params.name!r}; list the tools to see what exists.")
        arguments = dict(params.arguments or {})
        problems = [_problem(error) for error in validators[spec.name].iter_errors(arguments)]
        if problems:
            message = f"Invalid arguments for {spec.name}: " + "; ".join(sorted(problems))
            return _error("InvalidArguments", message, {"errors": sorted(problems)})
        if spec.name == WAIT_TOOL:
            return await _wait(ctx, api, spec, arguments, on_behalf_of, max_wait_seconds)
        return _result(spec, await api.call(spec, arguments, on_behalf_of))

    return Server(
        SERVER_NAME,
        version="1.0.0",
        instructions=INSTRUCTIONS.format(max_wait=max_wait_seconds),
        get_tool_input_schema=lambda name: by_name[name].input_schema if name in by_name else None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _wait(
    ctx: Context,
    api: ApiClient,
    spec: ToolSpec,
    arguments: dict[str, Any],
    on_behalf_of: str | None,
    max_wait_seconds: int,
) -> types.CallToolResult:
    """Repeat the API's ≤ round_seconds long poll until the operation is terminal or the budget is spent.

    A budget cut by `max_wait_seconds` is said in the result, so that the agent simply calls again."""
    requested = int(arguments.get("timeoutSeconds", MAX_WAIT_SECONDS))
    budget = min(requested, max_wait_seconds)
    started = time.monotonic()
    while True:
        remaining = max(0, math.ceil(budget - (time.monotonic() - started)))
        response = await api.call(spec, arguments, on_behalf_of, {"timeoutSeconds": min(spec.round_seconds, remaining)})
        if not response.ok:
            return _result(spec, response)
        elapsed = time.monotonic() - started
        await ctx.session.report_progress(min(elapsed, budget), total=budget, message=_progress(response.body))
        if response.body.get("status") in TERMINAL_STATUSES:
            return _result(spec, response)
        if elapsed >= budget:
            return _result(spec, response, _capped(response.body, max_wait_seconds) if budget < requested else "")


def _capped(operation: dict[str, Any], max_wait_seconds: int) -> str:
    return (
        f"Still {operation.get('status')} after {max_wait_seconds} s, the most one {WAIT_TOOL} call waits on this "
        f"server. Call {WAIT_TOOL} again with operationId={operation.get('operationId')}."
    )


def _progress(operation: dict[str, Any]) -> str:
    """`op-… RUNNING: stage eks-control-plane, step Create EKS Cluster (2/5 stages done)`."""
    stages = operation.get("stages") or []
    done = sum(1 for stage in stages if stage.get("status") == "SUCCEEDED")
    current = next((stage["name"] for stage in stages if stage.get("status") in ("RUNNING", "FAILED")), None)
    where = [f"stage {current}"] if current else []
    if operation.get("currentStep"):
        where.append(f"step {operation['currentStep']}")
    return (
        f"{operation.get('operationId')} {operation.get('status')}: "
        f"{', '.join(where) or 'between stages'} ({done}/{len(stages)} stages done)"
    )


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    return f"{where}: {error.message}"


def _error(code: str, message: str, details: dict[str, Any] | None = None) -> types.CallToolResult:
    body: dict[str, Any] = {"code": code, "message": message}
    if details:
        body["details"] = details
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(body, indent=2))], structured_content=body, is_error=True
    )


def _result(spec: ToolSpec, response: ApiResponse, lead: str = "") -> types.CallToolResult:
    body = response.body if isinstance(response.body, dict) else {"result": response.body}
    if not response.ok:
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(body, indent=2))], structured_content=body, is_error=True
        )
    lead = lead or _next_step(spec, body)
    text = (lead + "\n" if lead else "") + json.dumps(body, indent=2)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=body)


def _next_step(spec: ToolSpec, body: dict[str, Any]) -> str:
    """One sentence telling the agent what to do with this result."""
    if body.get("confirmationToken"):
        return (
            f"Plan only; nothing changed. Show these actions to the person and ask them to confirm. If they agree, "
            f"call {spec.name} again with the same arguments and confirmationToken={body['confirmationToken']}."
        )
    status = body.get("status")
    if spec.read_only or not body.get("operationId") or status in TERMINAL_STATUSES:
        return ""
    return (
        f"Operation {body['operationId']} is {status}. Call {WAIT_TOOL} with operationId={body['operationId']} "
        f"until the status is SUCCEEDED, FAILED or CANCELLED."
    )
