"""What an agent reads first: the one lead sentence of every tool result.

Belongs here: `lead` (what happened and what to call next, for every kind of result: a read, a plan, a
started, running, finished or failed operation, a no-op, an error, an outage). Not here: calling the API
(`client`) or building the MCP result (`server`).
"""

from __future__ import annotations

from typing import Any

from mcp_server.tools import RESUME_TOOL, WAIT_TOOL, ToolSpec


def lead(spec: ToolSpec, arguments: dict[str, Any], body: dict[str, Any]) -> str:
    """One sentence on a successful result: what happened, and what to do next."""
    token = body.get("confirmationToken")
    if token:
        again = "dryRun false and " if arguments.get("dryRun") else "the same arguments and "
        return (
            f"Plan only; nothing changed. Show these actions to the person and ask them to confirm; if they agree, "
            f"call {spec.name} again with {again}confirmationToken={token}."
        )
    if body.get("dryRun") or arguments.get("dryRun"):
        return f"Plan only; nothing changed. To carry it out, call {spec.name} again with dryRun false."
    operation = _operation(body)
    if operation.get("operationId"):
        return operation_lead(operation, started=not spec.read_only and spec.name != WAIT_TOOL)
    if not spec.read_only:
        message = str(body.get("message") or "").rstrip(".")
        return f"{spec.name} is done{': ' + message if message else ''}; no operation was started, nothing to wait on."
    return f"{spec.name} answered; nothing changed."


def operation_lead(operation: dict[str, Any], *, started: bool = False, still_running_after: int | None = None) -> str:
    """The lead of a result carrying an operation, by its status."""
    operation_id = operation["operationId"]
    status = operation.get("status") or "PENDING"
    stage = _current_stage(operation)
    if status == "SUCCEEDED":
        return f"Operation {operation_id} SUCCEEDED; read the result, or call the next tool."
    if status == "FAILED":
        error = operation.get("error")
        failed_step = error.get("step") if isinstance(error, dict) else None
        step = failed_step or operation.get("currentStep") or stage or "an unknown step"
        return (
            f"Operation {operation_id} FAILED at step {step}: {_error(operation)} Fix the cause, then call "
            f"{RESUME_TOOL} with operationId={operation_id}."
        )
    if status == "CANCELLED":
        return f"Operation {operation_id} was CANCELLED; nothing more will run."
    where = f" at stage {stage}" if stage else ""
    if still_running_after is not None:
        return (
            f"Operation {operation_id} is still {status}{where} after {still_running_after} s — call {WAIT_TOOL} "
            f"again with operationId={operation_id}."
        )
    verb = "started and is" if started else "is"
    return f"Operation {operation_id} {verb} {status}{where}; call {WAIT_TOOL} with operationId={operation_id}."


def error_lead(spec_name: str, body: dict[str, Any]) -> str:
    """The lead of an error result: which tool failed, why, and (from the API's message) what to do. A refusal that
    carries a plan and its token (a call whose values need the person's confirmation) says how to confirm."""
    details = body.get("details")
    token = details.get("confirmationToken") if isinstance(details, dict) else None
    if body.get("code") == "ConfirmationRequired" and token:
        return (
            "Not done; nothing changed: the person must confirm first. Show the actions in details to the person and "
            f"ask them to confirm; if they agree, call {spec_name} again with the same arguments and "
            f"confirmationToken={token}."
        )
    code = body.get("code") or "Error"
    message = str(body.get("message") or "no message").rstrip()
    return f"{spec_name} failed ({code}): {message}"


def _operation(body: dict[str, Any]) -> dict[str, Any]:
    """The operation a result carries: nested under `operation` (explicit-diff updates), or the body itself."""
    nested = body.get("operation")
    return nested if isinstance(nested, dict) and nested.get("operationId") else body


def _current_stage(operation: dict[str, Any]) -> str | None:
    for stage in operation.get("stages") or []:
        if stage.get("status") in ("RUNNING", "FAILED"):
            return str(stage.get("name"))
    for stage in operation.get("stages") or []:
        if stage.get("status") not in ("SUCCEEDED", "SKIPPED"):
            return str(stage.get("name"))
    return None


def _error(operation: dict[str, Any]) -> str:
    error = operation.get("error")
    if isinstance(error, dict):
        text = str(error.get("message") or error.get("cause") or error.get("code") or "no error recorded")
    else:
        text = str(error or "no error recorded")
    return text.rstrip(".") + "."
