"""OpenAPI → MCP tools: one tool per API operation, named by its operationId.

Belongs here: reading the OpenAPI document (resolving `$ref`s, flattening path, query and body
arguments into one closed object schema), writing descriptions for the model and deriving the
annotations from the HTTP method, the result's fields from the success responses, the role each tool
needs (the API's `x-required-role`), the statuses an operation ends in (`x-terminal` of the API's
OperationStatus), which tools are long polls and when their wait is done (a route's `x-long-poll`) and which tool
waits for what a route creates (`x-waited-by`). Not here: HTTP calls (`client`) or serving (`server`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import mcp_types as types

from mcp_server.compact import compact
from mcp_server.wording import Vocabulary

WAIT_TOOL = "operation_wait"
RESUME_TOOL = "operation_resume"
# Below every common client's read timeout (the MCP SDK's is 300 s) on every transport.
MAX_WAIT_SECONDS = 240
# Roles from weakest to strongest, as the API's `x-required-role` names them.
ROLES = ("viewer", "operator", "admin")
SYNCHRONOUS_NOTE = "Answers with the outcome itself: there is no operation to wait on."
# Each destructive route's description says when it answers with a plan and a token; the note says what to do then.
CONFIRMATION_NOTE = (
    "Show the plan to the person; only after they agree, call again with the same arguments and the confirmationToken."
)
# Path and query parameters many tools share, in the words of one argument: the REST document's longer text spells
# out what the schema's pattern and bounds say (clusterTag, limit) or what each list tool's description says (continue).
SHARED_ARGUMENTS = {
    "clusterTag": "Cluster tag.",
    "continue": "The previous page's `continue`; an expired one is refused: start again without it.",
    "limit": "Items per page.",
}
# The API's extensions of a long-poll route (which field of its answer ends the wait at which values) and of a route
# that creates a workload (the tool that waits for it).
LONG_POLL_EXTENSION = "x-long-poll"
WAITED_BY_EXTENSION = "x-waited-by"
HTTP_METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class ToolSpec:
    """An API operation as a tool: its MCP face and where each argument goes in the HTTP request."""

    name: str
    method: str
    path: str
    description: str
    input_schema: dict[str, Any]
    annotations: types.ToolAnnotations
    path_params: tuple[str, ...] = ()
    query_params: tuple[str, ...] = ()
    body_params: tuple[str, ...] = ()
    has_body: bool = False
    # Long polls only (operation_wait, job_wait, …): the REST long poll's own maximum per request, and the field of
    # its answer whose values end the wait.
    round_seconds: int = 0
    done_field: str = ""
    done_values: tuple[object, ...] = ()
    # The weakest role that may call it (None: the document does not say).
    required_role: str | None = None
    # A tool that creates a workload: the long poll that waits for it, and that tool's path arguments.
    wait_tool: str | None = None
    wait_arguments: tuple[str, ...] = ()

    @property
    def long_poll(self) -> bool:
        return self.round_seconds > 0

    def done(self, body: dict[str, Any]) -> bool:
        """Whether a long poll's answer ends the wait."""
        return body.get(self.done_field) in self.done_values

    @property
    def read_only(self) -> bool:
        return bool(self.annotations.read_only_hint)

    def tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            description=self.description,
            input_schema=self.input_schema,
            annotations=self.annotations,
        )

    def allowed_for(self, role: str | None) -> bool:
        """Whether a caller of `role` may call this tool (an unknown role or requirement hides nothing)."""
        if role not in ROLES or self.required_role not in ROLES:
            return True
        return ROLES.index(role) >= ROLES.index(str(self.required_role))


def terminal_statuses(document: dict[str, Any]) -> tuple[str, ...]:
    """The statuses an operation ends in, as the API's document lists them."""
    return tuple(document["components"]["schemas"]["OperationStatus"]["x-terminal"])


def either(statuses: Sequence[str]) -> str:
    """`A, B or C`."""
    return f"{', '.join(statuses[:-1])} or {statuses[-1]}" if len(statuses) > 1 else "".join(statuses)


def mutating_note(terminal: Sequence[str]) -> str:
    """The closing sentence of a tool that starts an operation."""
    return f"Returns operationId; call {WAIT_TOOL} until the status is {either(terminal)}."


def workload_wait_note(max_wait_seconds: int, progress: bool) -> str:
    """The closing sentence of a workload's wait tool on a server whose calls wait at most `max_wait_seconds`."""
    notes = ", sending progress notifications" if progress else ""
    return f"One call waits up to {max_wait_seconds} s on this server{notes}."


def wait_description(max_wait_seconds: int, progress: bool, terminal: Sequence[str]) -> str:
    """What operation_wait does on a server whose calls wait at most `max_wait_seconds`."""
    notes = " sending progress notifications naming the current stage," if progress else ""
    return (
        f"Wait for an operation to finish. Blocks until the operation is {either(terminal)}, or until "
        f"timeoutSeconds (at most {max_wait_seconds} on this server) have passed,{notes} and returns as soon as the "
        f"operation is terminal. If the result is still PENDING or RUNNING, call {WAIT_TOOL} again; if it is FAILED, "
        f"read error and the failed stage, fix the cause and call {RESUME_TOOL}."
    )


def tools_from_openapi(document: dict[str, Any]) -> list[ToolSpec]:
    """Every operation of the document as a tool spec, in document order."""
    components = document.get("components", {}).get("schemas", {})
    terminal = terminal_statuses(document)
    specs: list[ToolSpec] = []
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            spec = _spec(path, method.upper(), operation, components, terminal)
            long_poll = operation.get(LONG_POLL_EXTENSION)
            specs.append(_as_wait_tool(spec, long_poll, terminal) if long_poll else spec)
    specs = _with_wait_arguments(specs)
    vocabulary = Vocabulary((spec.method, spec.path, spec.name) for spec in specs)
    specs = [_for_agents(spec, vocabulary) for spec in specs]
    names = [spec.name for spec in specs]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"operationIds must be unique; repeated: {', '.join(duplicates)}")
    return specs


def _for_agents(spec: ToolSpec, vocabulary: Vocabulary) -> ToolSpec:
    """The spec in an agent's words (tools and arguments, never REST routes or status codes), its schema compact."""
    return replace(
        spec,
        description=vocabulary.for_agents(spec.description),
        input_schema=compact(vocabulary.in_schema(spec.input_schema)),
    )


def _spec(
    path: str, method: str, operation: dict[str, Any], components: dict[str, Any], terminal: Sequence[str]
) -> ToolSpec:
    name = operation.get("operationId")
    if not name:
        raise ValueError(f"{method} {path} has no operationId; every API operation must name its tool")
    properties: dict[str, Any] = {}
    required: list[str] = []
    locations: dict[str, list[str]] = {"path": [], "query": [], "body": []}
    for parameter in operation.get("parameters", []):
        where = parameter["in"]
        if where not in ("path", "query"):
            continue
        schema = _property(parameter.get("schema", {}), components, parameter.get("description"))
        if parameter["name"] in SHARED_ARGUMENTS:
            schema["description"] = SHARED_ARGUMENTS[parameter["name"]]
        _add(properties, parameter["name"], schema, where, locations)
        if parameter.get("required") or where == "path":
            required.append(parameter["name"])
    body = _body_schema(operation, components)
    if body is not None:
        for key, schema in body.get("properties", {}).items():
            _add(properties, key, _property(schema, components, None), "body", locations)
        if operation["requestBody"].get("required"):
            required.extend(key for key in body.get("required", []) if key not in required)
    return ToolSpec(
        name=name,
        method=method,
        path=path,
        description=_description(
            method, operation, "confirmationToken" in properties, terminal, _result_fields(operation, components)
        ),
        input_schema={
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
        annotations=_annotations(method, operation, "confirmationToken" in properties),
        path_params=tuple(locations["path"]),
        query_params=tuple(locations["query"]),
        body_params=tuple(locations["body"]),
        has_body=body is not None,
        required_role=operation.get("x-required-role"),
        wait_tool=operation.get(WAITED_BY_EXTENSION),
    )


def _with_wait_arguments(specs: list[ToolSpec]) -> list[ToolSpec]:
    """Each creating tool with the path arguments of the long poll that waits for what it creates."""
    by_name = {spec.name: spec for spec in specs}
    for spec in specs:
        if spec.wait_tool and spec.wait_tool not in by_name:
            raise ValueError(f"{spec.name} is waited by {spec.wait_tool}, which the API does not have")
    return [
        replace(spec, wait_arguments=by_name[spec.wait_tool].path_params) if spec.wait_tool else spec for spec in specs
    ]


def _result_fields(operation: dict[str, Any], components: dict[str, Any]) -> tuple[str, ...]:
    """The top-level fields of the success responses' JSON objects, in document order.

    Named in the description rather than published as an outputSchema: hosts hand the model a tool's name,
    description and inputSchema only (anthropics/claude-code#54197), while clients validate every result against an
    outputSchema (the MCP SDK's `ClientSession.validate_tool_result`) - 150k characters that only the validator read.
    """
    fields: dict[str, None] = {}
    for status, response in operation.get("responses", {}).items():
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        if status.startswith("2") and schema is not None:
            fields.update(dict.fromkeys(_resolve(schema, components).get("properties", {})))
    return tuple(fields)


def _add(
    properties: dict[str, Any], name: str, schema: dict[str, Any], where: str, locations: dict[str, list[str]]
) -> None:
    """One argument per name; a body field that repeats a path parameter is sent in both places."""
    if name in properties and not (where == "body" and name in locations["path"]):
        raise ValueError(f"argument {name} appears twice ({where} and another location); rename one in the API")
    properties.setdefault(name, schema)
    locations[where].append(name)


def _body_schema(operation: dict[str, Any], components: dict[str, Any]) -> dict[str, Any] | None:
    content = operation.get("requestBody", {}).get("content", {})
    schema = content.get("application/json", {}).get("schema")
    if schema is None:
        return None
    resolved: dict[str, Any] = _resolve(schema, components)
    if resolved.get("type") != "object":
        raise ValueError(f"{operation['operationId']}: a JSON request body must be an object to become arguments")
    return resolved


def _property(schema: dict[str, Any], components: dict[str, Any], description: str | None) -> dict[str, Any]:
    resolved: dict[str, Any] = _resolve(schema, components)
    resolved.pop("title", None)
    if description and "description" not in resolved:
        resolved["description"] = description
    return resolved


def _resolve(schema: Any, components: dict[str, Any], depth: int = 0) -> Any:
    """Inline `#/components/schemas/...` references (the API's models are not recursive), without extensions."""
    if depth > 32:
        raise ValueError("schema references nest deeper than 32 levels; is a model recursive?")
    if isinstance(schema, list):
        return [_resolve(item, components, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        target = components[schema["$ref"].rsplit("/", 1)[-1]]
        siblings = {key: value for key, value in schema.items() if key != "$ref"}
        return _resolve({**copy.deepcopy(target), **siblings}, components, depth + 1)
    # OpenAPI's `x-` extensions (x-terminal) are the API's to read, not JSON Schema a client validates with.
    return {key: _resolve(value, components, depth) for key, value in schema.items() if not key.startswith("x-")}


def _description(
    method: str, operation: dict[str, Any], needs_confirmation: bool, terminal: Sequence[str], fields: Sequence[str]
) -> str:
    """Summary, the route's description, the answer's fields, then what to do with a plan and whether to wait."""
    parts = [operation.get("summary", operation["operationId"]).rstrip(".") + "."]
    if operation.get("description"):
        parts.append(operation["description"])
    if fields:
        parts.append(f"Result fields: {', '.join(fields)}.")
    if needs_confirmation:
        parts.append(CONFIRMATION_NOTE)
    if method != "GET":
        parts.append(mutating_note(terminal) if starts_operation(operation) else SYNCHRONOUS_NOTE)
    return " ".join(parts)


def starts_operation(operation: dict[str, Any]) -> bool:
    """A route that starts a workflow documents its 202 answer (which carries the operationId)."""
    return "202" in operation.get("responses", {})


def _annotations(method: str, operation: dict[str, Any], needs_confirmation: bool) -> types.ToolAnnotations:
    """Destructive exactly when the API can demand a confirmation token for the call (its rule for what
    terminates, deletes or restarts); idempotent for the methods whose repeat changes nothing more."""
    return types.ToolAnnotations(
        read_only_hint=method == "GET",
        destructive_hint=needs_confirmation,
        idempotent_hint=method in ("GET", "DELETE", "PUT", "PATCH"),
        open_world_hint=False,
    )


def _as_wait_tool(spec: ToolSpec, long_poll: dict[str, Any], terminal: Sequence[str]) -> ToolSpec:
    """A long poll at the MCP level: one call waits up to MAX_WAIT_SECONDS by repeating the API's long poll."""
    rest_timeout = spec.input_schema["properties"]["timeoutSeconds"]
    is_operation = spec.name == WAIT_TOOL
    schema = copy.deepcopy(spec.input_schema)
    schema["properties"]["timeoutSeconds"] = {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_WAIT_SECONDS,
        "default": MAX_WAIT_SECONDS,
        "description": f"Seconds to wait at most (0-{MAX_WAIT_SECONDS}). The call returns as soon as the "
        f"{'operation is terminal' if is_operation else 'wait is done'}.",
    }
    return replace(
        spec,
        description=wait_description(MAX_WAIT_SECONDS, progress=True, terminal=terminal)
        if is_operation
        else spec.description,
        input_schema=schema,
        query_params=tuple(name for name in spec.query_params if name != "timeoutSeconds"),
        round_seconds=int(rest_timeout.get("maximum", 25)),
        done_field=long_poll["field"],
        done_values=tuple(long_poll["values"]),
    )
