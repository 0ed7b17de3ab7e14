"""Serves tool specs as an MCP server (the SDK's low-level `Server`): list, validate, call, wait.

Belongs here: argument validation against each tool's schema, turning API responses into tool
results (errors as `isError` results carrying the API's `{code, message, details}`), and the loop of the
long-poll tools (`operation_wait`, `job_wait`, …) that repeats the API's long poll and reports progress.
Transports live in `http` and `__main__`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator, ValidationError
from jsonschema.exceptions import best_match
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from mcp_server.client import ApiClient, ApiResponse
from mcp_server.leads import error_lead, lead, operation_lead, workload_lead, workload_progress
from mcp_server.tools import MAX_WAIT_SECONDS, WAIT_TOOL, ToolSpec, wait_description, workload_wait_note
from mcp_server.wording import Vocabulary

SERVER_NAME = "hypd-inst"
INSTRUCTIONS = (
    "Tools of the InstantStart control plane for SageMaker HyperPod on EKS. Every call names its clusterTag; "
    "there is no active cluster. Every result starts with one sentence saying what happened and what to call next. "
    "A tool that starts an operation says so and returns an operationId: call operation_wait until the operation has "
    "ended (one call waits up to {max_wait} seconds on this server). A FAILED operation is resumed with "
    "operation_resume once its cause is fixed. Jobs, model servers and endpoints have waits of their own (job_wait, "
    "inference_wait_deployment, inference_endpoint_wait): wait with them rather than reading again and again. "
    "Destructive tools first return a plan and a confirmationToken: show the plan to the person and repeat the call "
    "with the token only after they confirm."
)

Context = ServerRequestContext[Any, Any]


def build_server(
    specs: Sequence[ToolSpec],
    api: ApiClient,
    on_behalf_of: str | None = None,
    *,
    max_wait_seconds: int = MAX_WAIT_SECONDS,
    progress: bool = True,
    role: str | None = None,
) -> Server[Any]:
    """An MCP server whose tools are those of `specs` that `role` may call, calling `api`.

    `on_behalf_of` is the verified user's audit header; `max_wait_seconds` caps one operation_wait call
    below the transport's timeouts (the remote server on Lambda answers within API Gateway's 29 s);
    `progress` says whether the transport delivers progress notifications while a call runs.
    """
    served = [_for_this_server(spec, max_wait_seconds, progress) for spec in specs]
    # Listed: what the role may call. A tool left out is still served: the API refuses it (403) and audits the try.
    offered = [spec for spec in served if spec.allowed_for(role)]
    by_name = {spec.name: spec for spec in served}
    validators = {spec.name: Draft202012Validator(spec.input_schema) for spec in served}
    vocabulary = Vocabulary((spec.method, spec.path, spec.name) for spec in specs)

    async def list_tools(ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[spec.tool() for spec in offered])

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = by_name.get(params.name)
        if spec is None:
            return _error(
                params.name,
                {
                    "code": "UnknownTool",
                    "message": f"There is no tool {params.name!r} for you; list the tools to see what you may call.",
                },
            )
        arguments = dict(params.arguments or {})
        problems = sorted(_problem(error) for error in validators[spec.name].iter_errors(arguments))
        if problems:
            message = f"Invalid arguments for {spec.name}: " + "; ".join(problems) + ". Fix them and call again."
            return _error(spec.name, {"code": "InvalidArguments", "message": message, "details": {"errors": problems}})
        if spec.long_poll:
            return await _wait(ctx, api, spec, arguments, on_behalf_of, max_wait_seconds, vocabulary)
        response = await api.call(spec, arguments, on_behalf_of)
        return _result(spec, response, vocabulary, lead_sentence=None, arguments=arguments)

    return Server(
        SERVER_NAME,
        version="1.0.0",
        instructions=INSTRUCTIONS.format(max_wait=max_wait_seconds),
        get_tool_input_schema=lambda name: by_name[name].input_schema if name in by_name else None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _for_this_server(spec: ToolSpec, max_wait_seconds: int, progress: bool) -> ToolSpec:
    """A long poll describes this server's cap and whether progress arrives: it promises nothing more."""
    if not spec.long_poll:
        return spec
    if spec.name == WAIT_TOOL:
        terminal = [str(status) for status in spec.done_values]
        return replace(spec, description=wait_description(max_wait_seconds, progress, terminal))
    return replace(spec, description=f"{spec.description} {workload_wait_note(max_wait_seconds, progress)}")


async def _wait(
    ctx: Context,
    api: ApiClient,
    spec: ToolSpec,
    arguments: dict[str, Any],
    on_behalf_of: str | None,
    max_wait_seconds: int,
    vocabulary: Vocabulary,
) -> types.CallToolResult:
    """Repeat the API's ≤ round_seconds long poll until its answer is done (an operation terminal, a workload ended
    or ready) or the budget is spent.

    A wait that ran out says where the operation or workload stands and that the agent simply calls again."""
    requested = int(arguments.get("timeoutSeconds", MAX_WAIT_SECONDS))
    budget = min(requested, max_wait_seconds)
    started = time.monotonic()
    while True:
        remaining = max(0, math.ceil(budget - (time.monotonic() - started)))
        response = await api.call(spec, arguments, on_behalf_of, {"timeoutSeconds": min(spec.round_seconds, remaining)})
        if not response.ok:
            return _result(spec, response, vocabulary)
        elapsed = time.monotonic() - started
        operation = spec.name == WAIT_TOOL
        message = _progress(response.body) if operation else workload_progress(response.body)
        await ctx.session.report_progress(min(elapsed, budget), total=budget, message=message)
        if spec.done(response.body):
            return _result(spec, response, vocabulary)
        if elapsed >= budget:
            still = (
                operation_lead(response.body, still_running_after=budget)
                if operation
                else workload_lead(spec, arguments, response.body, still_waiting_after=budget)
            )
            return _result(spec, response, vocabulary, still)


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


def _problem(error: ValidationError) -> str:
    """`field.path: message`, naming the innermost field of an `anyOf` (an optional nested model) that failed."""
    while error.context:
        # Skip the `null` branch of an optional field: the other branch says what is wrong.
        branches = [branch for branch in error.context if branch.validator != "type"] or list(error.context)
        error = best_match(branches) or branches[0]
    where = ".".join(str(part) for part in error.absolute_path) or "arguments"
    return f"{where}: {error.message}"


def _error(tool: str, body: dict[str, Any]) -> types.CallToolResult:
    text = error_lead(tool, body) + "\n" + json.dumps(body, indent=2)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=body, is_error=True)


def _result(
    spec: ToolSpec,
    response: ApiResponse,
    vocabulary: Vocabulary,
    lead_sentence: str | None = None,
    arguments: dict[str, Any] | None = None,
) -> types.CallToolResult:
    """The tool result of an API response: the lead sentence, then the body (also as structured content)."""
    body = response.body if isinstance(response.body, dict) else {"result": response.body}
    if not response.ok:
        return _error(spec.name, vocabulary.translate_body(body))
    sentence = lead_sentence or lead(spec, arguments or {}, body)
    text = sentence + "\n" + json.dumps(body, indent=2)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=body)
