"""What an agent reads first: the one lead sentence of every tool result.

Belongs here: `lead` (what happened and what to call next, for every kind of result: a read, which leads with
its finding, a plan, a started, running, finished or failed operation, which names the next tool, a workload created
or waited for, a no-op, an error, an outage). Not here: calling the API (`client`) or building the MCP result
(`server`).
"""

from __future__ import annotations

from typing import Any

from mcp_server.tools import RESUME_TOOL, WAIT_TOOL, ToolSpec

# What to call once an operation of each kind has SUCCEEDED: the pipeline's next stage, or the read that shows the
# outcome (a unit test holds the keys to the API's operation kinds and the values to its tools).
NEXT_TOOL = {
    "create_cluster": ("cluster_get_status", "to verify the cluster is ready for work"),
    "create_eks_cluster": ("cluster_configure_dependencies", "for stage 3"),
    "configure_cluster_dependencies": ("hyperpod_create", "for stage 4"),
    "create_hyperpod_cluster": ("s3_storage_create", "for stage 5"),
    "configure_storage": ("cluster_get_status", "to verify the cluster is ready for work"),
    "import_cluster": ("cluster_get_status", "to see which stages are still missing"),
    "restore_cluster_access": ("cluster_get_status", "to read the cluster again"),
    "delete_eks_cluster": ("cluster_list_all", "to see the clusters left"),
    "add_instance_group": ("hyperpod_list_nodes", "to see the group's nodes"),
    "update_instance_group": ("cluster_get_instance_groups", "to see the groups"),
    "delete_instance_group": ("cluster_get_instance_groups", "to see the groups left"),
    "update_cluster_software": ("cluster_get_instance_groups", "to see each group's release"),
    "update_cluster_features": ("hyperpod_get_advanced_features", "to see each feature's state"),
    "reboot_nodes": ("hyperpod_list_nodes", "to see each node's health"),
    "replace_nodes": ("hyperpod_list_nodes", "to see each node's health"),
    "delete_nodes": ("hyperpod_list_nodes", "to see the nodes left"),
    "check_node_health": ("hyperpod_list_nodes", "to see each node's health"),
    "download_to_storage": ("s3_storage_list_contents", "to see what was downloaded"),
    "prepare_team_namespace": ("hyperpod_list_teams", "to see each team's namespace readiness"),
    "remove_team_namespace": ("hyperpod_list_teams", "to see the teams left"),
}
# How many items of a list a lead names before it counts the rest.
NAMED = 3
# The fields in which a read's subject says where it stands (a job's phase, an endpoint's state, a cluster's status).
STATE_FIELDS = ("phase", "state", "status")
# The errors of an operation that ended with a verdict resuming does not change: the message says what to call.
NOT_RESUMABLE = {"NodeNotRecoveredError"}
# Where a result keeps the workload it is about.
WORKLOAD_KEYS = ("job", "deployment", "endpoint", "detail")
# What to do once a workload's wait ended in this state.
AFTER_WAIT = {
    "Succeeded": "read its log with job_get_logs, or serve its output with inference_deploy_container",
    "Failed": "read why in its events (job_get_status) and its log (job_get_logs)",
    "Running": "a RayCluster runs until deleted: read it with job_get_status",
    "Ready": "call it with inference_call_model",
    "Scaled to zero": "it serves nothing until inference_update_deployment scales it up",
    "DeploymentComplete": "call it with inference_endpoint_call",
    "DeploymentFailed": "its conditions say why (inference_endpoint_get); fix the cause, delete it and create it again",
    "DeletionComplete": "it is gone",
    "DeletionFailed": "its conditions say why (inference_endpoint_get)",
}


def lead(spec: ToolSpec, arguments: dict[str, Any], body: dict[str, Any]) -> str:
    """One sentence on a successful result: what happened, and what to do next."""
    token = body.get("confirmationToken")
    failing = [check for check in body.get("checks") or [] if isinstance(check, dict) and check.get("status") == "fail"]
    if failing and (token or body.get("dryRun") or arguments.get("dryRun")):
        return _refused_plan_lead(spec, failing)
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
    if spec.long_poll:
        return workload_lead(spec, arguments, body)
    if spec.wait_tool:
        return _created_lead(spec, arguments, body)
    finding = _finding(body)
    if finding:
        return finding
    if not spec.read_only:
        message = str(body.get("message") or "").rstrip(".")
        return f"{spec.name} is done{': ' + message if message else ''}; no operation was started, nothing to wait on."
    if body.get("note"):
        return f"{spec.name} answered: {body['note']}"
    return read_lead(spec, body)


def _finding(body: dict[str, Any]) -> str | None:
    """What a readiness, drift or health report found, whichever tool answered with it."""
    tag = body.get("clusterTag")
    if isinstance(body.get("ready"), bool) and isinstance(body.get("missing"), list):
        if body["ready"]:
            nodes, gpus = body.get("nodesReady"), body.get("gpusAllocatable")
            return f"Cluster {tag} is ready for work: {nodes} nodes Ready, {gpus} GPUs allocatable."
        return f"Cluster {tag} is not ready; missing: {_some(body['missing'])}."
    if isinstance(body.get("inSync"), bool):
        return _drift_lead(tag, body)
    if isinstance(body.get("teams"), list) and isinstance(body.get("allocated"), dict):
        return _teams_lead(tag, body["teams"])
    if isinstance(body.get("nodesUnhealthy"), int) and isinstance(body.get("pendingByReason"), dict):
        pending = sum(count for count in body["pendingByReason"].values() if isinstance(count, int))
        return (
            f"Cluster {tag}: {body['nodesUnhealthy']} of {body.get('nodesTotal')} nodes unhealthy, {pending} pods "
            f"pending, {body.get('warningEventsTotal')} warning events."
        )
    return None


def read_lead(spec: ToolSpec, body: dict[str, Any]) -> str:
    """A read leads with who the caller is, how many items it lists (and whether more pages follow), or the state of
    what it reads."""
    name, tag = spec.name, body.get("clusterTag")
    if body.get("principal") and body.get("role"):
        return f"You act as {body['principal']} with role {body['role']}."
    items = [(key, value) for key, value in body.items() if isinstance(value, list)]
    if len(items) == 1 and not isinstance(body.get("name"), str):
        field, listed = items[0]
        if "continue" not in spec.input_schema.get("properties", {}):
            return f"{name}: {len(listed)} {field}."
        more = f"; more follow: call {name} again with continue" if body.get("continue") else ""
        return f"{name}: {len(listed)} {field} on this page{more}."
    subject = body.get("name") or tag
    state = next((body[key] for key in STATE_FIELDS if isinstance(body.get(key), str)), None)
    if subject and state and body.get("waitingReason"):
        return f"{name}: {subject} is {state}: {body['waitingReason']}"
    if subject and state:
        return f"{name}: {subject} is {state}."
    return f"{name} answered; nothing changed."


def _teams_lead(tag: Any, teams: list[Any]) -> str:
    """Each team's use and queued jobs, the first waiting job's reason in Kueue's words (or why they are unknown)."""
    parts = []
    for team in teams[:NAMED]:
        if team.get("queueUnknown"):
            parts.append(f"{team.get('team')}'s use and queued jobs unknown: {team['queueUnknown']}")
            continue
        used = [
            f"{u.get('inUse')} {u.get('resource')}" for u in team.get("inUse") or [] if "gpu" in str(u.get("resource"))
        ]
        queued = team.get("queued") or []
        part = f"{team.get('team')} uses {', '.join(used) or 'no GPU'}, {len(queued)} queued"
        if queued:
            part += f" ({queued[0].get('name')}: {queued[0].get('message') or queued[0].get('reason')})"
        parts.append(part)
    more = f" and {len(teams) - NAMED} more teams" if len(teams) > NAMED else ""
    return f"Cluster {tag}: {len(teams)} teams; " + ("; ".join(parts) or "none yet") + more + "."


def _drift_lead(tag: Any, report: dict[str, Any]) -> str:
    if report["inSync"]:
        return f"Cluster {tag} is in sync: nothing drifted and no operation is stuck."
    findings = [
        str(finding.get("message") or finding.get("path")).rstrip(".") for finding in report.get("findings") or []
    ]
    stuck = [str(operation.get("operationId")) for operation in report.get("stuckOperations") or []]
    parts = [f"{len(findings)} fields drifted: {_some(findings)}"] if findings else []
    if stuck:
        parts.append(f"stuck operations (call {RESUME_TOOL} with each operationId): {_some(stuck)}")
    return f"Cluster {tag} is out of sync; " + "; ".join(parts) + "."


def _some(items: list[Any]) -> str:
    """The first NAMED items, and how many more."""
    named = "; ".join(str(item) for item in items[:NAMED])
    return named + (f" and {len(items) - NAMED} more" if len(items) > NAMED else "")


def operation_lead(operation: dict[str, Any], *, started: bool = False, still_running_after: int | None = None) -> str:
    """The lead of a result carrying an operation, by its status."""
    operation_id = operation["operationId"]
    status = operation.get("status") or "PENDING"
    stage = _current_stage(operation)
    if status == "SUCCEEDED":
        following = NEXT_TOOL.get(str(operation.get("kind")))
        if following:
            tag = operation.get("target")  # the cluster the operation ran on
            arguments = f" with clusterTag={tag}" if tag else ""
            return f"Operation {operation_id} SUCCEEDED; next, call {following[0]}{arguments} {following[1]}."
        return f"Operation {operation_id} SUCCEEDED; read the result, or call the next tool."
    if status == "FAILED":
        error = operation.get("error")
        failed_step = error.get("step") if isinstance(error, dict) else None
        step = failed_step or operation.get("currentStep") or stage or "an unknown step"
        if isinstance(error, dict) and error.get("code") in NOT_RESUMABLE:
            return f"Operation {operation_id} FAILED at step {step}: {_error(operation)}"
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


def workload_lead(
    spec: ToolSpec, arguments: dict[str, Any], body: dict[str, Any], still_waiting_after: int | None = None
) -> str:
    """The lead of a workload's wait: where it stands and what to call next."""
    kind, workload = _workload(body)
    state = _state(workload)
    if still_waiting_after is not None or not body.get("done"):
        after = f" after {still_waiting_after} s" if still_waiting_after is not None else ""
        why = f" ({workload['waitingReason']})" if workload.get("waitingReason") else ""
        return (
            f"The {kind} {workload.get('name')} is still {state}{after}{why} — call {spec.name} again with "
            f"{_arguments(spec.path_params, arguments, workload)}."
        )
    return f"The {kind} {workload.get('name')} is {state}; {AFTER_WAIT.get(state, 'read it for details')}."


def workload_progress(body: dict[str, Any]) -> str:
    """`job lf-agent Running (3.0 s waited)`."""
    kind, workload = _workload(body)
    return f"{kind} {workload.get('name')} {_state(workload)} ({body.get('waitedSeconds', 0)} s waited)"


def _refused_plan_lead(spec: ToolSpec, failing: list[dict[str, Any]]) -> str:
    """A plan whose checks fail: the call would be refused, so it offers nothing to carry out."""
    first = failing[0]
    fix = str(first.get("fix") or "change the request").rstrip(".")
    more = f" (and {len(failing) - 1} more failing check(s) in checks)" if len(failing) > 1 else ""
    return (
        f"Plan only; nothing changed, and carried out it would be refused: check {first.get('check')} fails{more}. "
        f"Fix: {fix}. Call {spec.name} with dryRun true again once that is changed."
    )


def _created_lead(spec: ToolSpec, arguments: dict[str, Any], body: dict[str, Any]) -> str:
    """A tool that created (or changed) a workload names the wait that follows it: the work has only begun."""
    _, workload = _workload(body)
    state = _state(workload)
    return (
        f"{spec.name} was accepted; {workload.get('name')} is {state}. To wait until it is ready or has ended, call "
        f"{spec.wait_tool} with {_arguments(spec.wait_arguments, arguments, workload)}."
    )


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


def _workload(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The workload a result carries (a wait's `job`, `deployment` or `endpoint`, a recipe's `detail`), and its kind."""
    for key in WORKLOAD_KEYS:
        nested = body.get(key)
        if isinstance(nested, dict) and nested.get("name"):
            return ("job" if key == "detail" else key), nested
    return "workload", body


def _state(workload: dict[str, Any]) -> str:
    return str(workload.get("phase") or workload.get("status") or workload.get("state") or "unknown")


def _arguments(names: tuple[str, ...], arguments: dict[str, Any], workload: dict[str, Any]) -> str:
    """`clusterTag=demo, jobName=lf-agent`: each path argument from the call, else the workload's name."""
    values = [f"{name}={arguments.get(name) or workload.get('name')}" for name in names]
    return ", ".join(values)


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
