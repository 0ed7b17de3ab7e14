"""OpenAPI → MCP tools: one tool per API operation, named by its operationId.

Belongs here: reading the OpenAPI document (resolving `$ref`s, flattening path, query and body
arguments into one closed object schema, referring to the tool that owns a model it takes whole), writing
descriptions for the model (summary, next step, notes) and deriving the annotations from the HTTP method, the role
each tool needs (the API's `x-required-role`), the statuses an operation ends in (`x-terminal` of the API's
OperationStatus), which tools are long polls and when their wait is done (a route's `x-long-poll`) and which tool
waits for what a route creates (`x-waited-by`). Not here: HTTP calls (`client`), serving (`server`) or the schemas'
encoding (`compact`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import mcp_types as types

from mcp_server.compact import compact, listed
from mcp_server.wording import Vocabulary

WAIT_TOOL = "operation_wait"
RESUME_TOOL = "operation_resume"
# Below every common client's read timeout (the MCP SDK's is 300 s) on every transport.
MAX_WAIT_SECONDS = 240
# Roles from weakest to strongest, as the API's `x-required-role` names them.
ROLES = ("viewer", "operator", "admin")
# A tool that starts an operation closes with this (one that does not, starts none); operation_wait's description says
# when an operation has ended.
OPERATION_NOTE = f"Starts an operation: wait with {WAIT_TOOL}."
# That a destructive call may answer with a plan to confirm first; the answer's lead and the server's instructions say
# how (show the plan to the person; once they agree, call again with the token).
CONFIRMATION_NOTE = "Destructive: may first answer with a plan for the person to confirm (confirmationToken)."
# Path and query parameters many tools share, published without the REST document's description: their name says it
# (clusterTag, dryRun, limit; the server names the pattern or bound a call breaks), the confirmation note says where a
# confirmationToken comes from, and the lead of a result with more pages says what to do with its `continue`.
UNDESCRIBED_ARGUMENTS = ("clusterTag", "confirmationToken", "continue", "dryRun", "limit")
# The API's extensions of a long-poll route (which field of its answer ends the wait at which values) and of a route
# that creates a workload (the tool that waits for it).
LONG_POLL_EXTENSION = "x-long-poll"
WAITED_BY_EXTENSION = "x-waited-by"
HTTP_METHODS = ("get", "post", "put", "patch", "delete")
# The MCP specification's value of each hint a tool leaves out (ToolAnnotations).
HINT_DEFAULTS = {"read_only_hint": False, "destructive_hint": True, "idempotent_hint": False, "open_world_hint": True}
# The hints that mean something only for a tool that is not read-only.
WRITE_HINTS = ("destructive_hint", "idempotent_hint")


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
            input_schema=_named_from_lists(listed(self.input_schema), self.path_params, self.body_params),
            annotations=listed_hints(self.annotations),
        )

    def allowed_for(self, role: str | None) -> bool:
        """Whether a caller of `role` may call this tool (an unknown role or requirement hides nothing)."""
        if role not in ROLES or self.required_role not in ROLES:
            return True
        return ROLES.index(role) >= ROLES.index(str(self.required_role))


def _named_from_lists(
    schema: dict[str, Any], path_params: tuple[str, ...], body_params: tuple[str, ...]
) -> dict[str, Any]:
    """A listed schema whose patterns are those of body arguments, which may name something new (a cluster, a job),
    and whose path arguments are their names and types only: a path or query argument names what exists (a cluster,
    a node, a Region), which the agent copies from a list or a result. The server checks every call against the whole
    schema and answers a malformed name with its pattern."""
    properties = {
        name: argument
        if name in body_params
        else _unpatterned({key: value for key, value in argument.items() if key != "description"})
        if name in path_params
        else _unpatterned(argument)
        for name, argument in schema.get("properties", {}).items()
    }
    return {**schema, "properties": properties} if properties else schema


def _unpatterned(argument: dict[str, Any]) -> dict[str, Any]:
    """An argument (or each item of a list argument) without its pattern."""
    return {
        key: _unpatterned(value) if key == "items" and isinstance(value, dict) else value
        for key, value in argument.items()
        if key != "pattern"
    }


def listed_hints(annotations: types.ToolAnnotations) -> types.ToolAnnotations:
    """The hints a client would not assume: those that differ from the specification's defaults, without the write
    hints of a read-only tool (the specification gives them meaning only when readOnlyHint is false)."""
    hints = annotations.model_dump(exclude_none=True)
    return types.ToolAnnotations(
        **{
            hint: value
            for hint, value in hints.items()
            if value != HINT_DEFAULTS.get(hint) and not (annotations.read_only_hint and hint in WRITE_HINTS)
        }
    )


def terminal_statuses(document: dict[str, Any]) -> tuple[str, ...]:
    """The statuses an operation ends in, as the API's document lists them."""
    return tuple(document["components"]["schemas"]["OperationStatus"]["x-terminal"])


def either(statuses: Sequence[str]) -> str:
    """`A, B or C`."""
    return f"{', '.join(statuses[:-1])} or {statuses[-1]}" if len(statuses) > 1 else "".join(statuses)


def workload_wait_note(max_wait_seconds: int, progress: bool) -> str:
    """The closing sentence of a workload's wait tool on a server whose calls wait at most `max_wait_seconds`."""
    notes = ", sending progress notifications" if progress else ""
    return f"One call waits up to {max_wait_seconds} s on this server{notes}."


def wait_description(max_wait_seconds: int, progress: bool, terminal: Sequence[str]) -> str:
    """What operation_wait does on a server whose calls wait at most `max_wait_seconds`."""
    notes = ", sending progress notifications naming the current stage" if progress else ""
    return (
        f"Wait for an operation to finish. Blocks until the operation is {either(terminal)}, or until "
        f"timeoutSeconds (at most {max_wait_seconds} on this server) have passed{notes}. If the result is still "
        f"PENDING or RUNNING, call {WAIT_TOOL} again; if it is FAILED, read error and the failed stage, fix the cause "
        f"and call {RESUME_TOOL}."
    )


def tools_from_openapi(document: dict[str, Any]) -> list[ToolSpec]:
    """Every operation of the document as a tool spec, in document order."""
    components = document.get("components", {}).get("schemas", {})
    terminal = terminal_statuses(document)
    operations = [
        (path, method.upper(), operation)
        for path, item in document.get("paths", {}).items()
        for method, operation in item.items()
        if method in HTTP_METHODS
    ]
    names = [_name(path, method, operation) for path, method, operation in operations]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"operationIds must be unique; repeated: {', '.join(duplicates)}")
    vocabulary = Vocabulary((method, path, name) for (path, method, _), name in zip(operations, names, strict=True))
    owners = _owned_models(operations)
    specs = []
    for path, method, operation in operations:
        spec = _spec(path, method, operation, components, vocabulary, owners)
        long_poll = operation.get(LONG_POLL_EXTENSION)
        specs.append(_as_wait_tool(spec, long_poll, terminal) if long_poll else spec)
    return _with_wait_arguments(specs)


def _with_wait_arguments(specs: list[ToolSpec]) -> list[ToolSpec]:
    """Each creating tool with the path arguments of the long poll that waits for what it creates."""
    by_name = {spec.name: spec for spec in specs}
    for spec in specs:
        if spec.wait_tool and spec.wait_tool not in by_name:
            raise ValueError(f"{spec.name} is waited by {spec.wait_tool}, which the API does not have")
    return [
        replace(spec, wait_arguments=by_name[spec.wait_tool].path_params) if spec.wait_tool else spec for spec in specs
    ]


def _owned_models(operations: list[tuple[str, str, dict[str, Any]]]) -> dict[str, str]:
    """Each model a tool takes as its whole body, as an argument elsewhere refers to it: "`tool`'s arguments except
    its own path and query arguments" (the schema lives in the tool that owns it, not in every tool that nests it)."""
    owners: dict[str, str] = {}
    for path, method, operation in operations:
        reference = _body_reference(operation)
        if reference is None or reference in owners:
            continue
        own = [parameter["name"] for parameter in operation.get("parameters", []) if parameter["in"] != "header"]
        listed = f"{', '.join(own[:-1])} and {own[-1]}" if len(own) > 1 else "".join(own)
        owners[reference] = f"`{_name(path, method, operation)}`'s arguments" + (f" except {listed}." if own else ".")
    return owners


def _body_reference(operation: dict[str, Any]) -> str | None:
    """The model a request body refers to (`#/components/schemas/Model`), if it is one."""
    schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    reference = schema.get("$ref")
    return reference.rsplit("/", 1)[-1] if isinstance(reference, str) else None


def _name(path: str, method: str, operation: dict[str, Any]) -> str:
    name = operation.get("operationId")
    if not name:
        raise ValueError(f"{method} {path} has no operationId; every API operation must name its tool")
    return str(name)


def _spec(
    path: str,
    method: str,
    operation: dict[str, Any],
    components: dict[str, Any],
    vocabulary: Vocabulary,
    owners: dict[str, str],
) -> ToolSpec:
    name = _name(path, method, operation)
    properties: dict[str, Any] = {}
    required: list[str] = []
    locations: dict[str, list[str]] = {"path": [], "query": [], "body": []}
    for parameter in operation.get("parameters", []):
        where = parameter["in"]
        if where not in ("path", "query"):
            continue
        schema = _property(parameter.get("schema", {}), components, parameter.get("description"))
        if parameter["name"] in UNDESCRIBED_ARGUMENTS:
            schema.pop("description", None)
        _add(properties, parameter["name"], schema, where, locations)
        if parameter.get("required") or where == "path":
            required.append(parameter["name"])
    body = _body_schema(operation, components)
    if body is not None:
        for key, schema in body.get("properties", {}).items():
            _add(properties, key, _argument(schema, components, owners), "body", locations)
        if operation["requestBody"].get("required"):
            required.extend(key for key in body.get("required", []) if key not in required)
    return ToolSpec(
        name=name,
        method=method,
        path=path,
        description=_description(method, operation, "confirmationToken" in properties, vocabulary),
        input_schema=compact(
            vocabulary.in_schema(
                {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
            ),
            name,
        ),
        annotations=_annotations(method, operation, "confirmationToken" in properties),
        path_params=tuple(locations["path"]),
        query_params=tuple(locations["query"]),
        body_params=tuple(locations["body"]),
        has_body=body is not None,
        required_role=operation.get("x-required-role"),
        wait_tool=operation.get(WAITED_BY_EXTENSION),
    )


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
    # The fields stay as the model writes them: `_argument` resolves each (or refers to the tool owning its model).
    reference = _body_reference(operation)
    resolved: dict[str, Any] = components[reference] if reference else _resolve(schema, components)
    if resolved.get("type") != "object":
        raise ValueError(f"{operation['operationId']}: a JSON request body must be an object to become arguments")
    return resolved


def _argument(schema: dict[str, Any], components: dict[str, Any], owners: dict[str, str]) -> dict[str, Any]:
    """A body field; one whose model another tool takes whole says so instead of repeating that tool's schema (a model
    never nests itself, so the tool that owns it never refers to itself)."""
    reference = schema.get("$ref")
    owner = owners.get(reference.rsplit("/", 1)[-1]) if isinstance(reference, str) else None
    if owner is None:
        return _property(schema, components, None)
    return {"type": "object", "description": " ".join(filter(None, (schema.get("description"), owner)))}


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


def _description(method: str, operation: dict[str, Any], needs_confirmation: bool, vocabulary: Vocabulary) -> str:
    """What the tool does (the route's summary), what to call next (the last sentence of the route's description that
    names another tool), then what to do with a plan and whether to wait. The rest of the route's description is the
    REST reader's: to an agent, the arguments' schema says how to call and the result's lead what came of it."""
    name = operation["operationId"]
    next_step = vocabulary.next_step(operation.get("description", ""), name)
    parts = [operation.get("summary", name).rstrip(".") + ".", *([next_step] if next_step else [])]
    if needs_confirmation:
        parts.append(CONFIRMATION_NOTE)
    if method != "GET" and starts_operation(operation):
        parts.append(OPERATION_NOTE)
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
    schema = copy.deepcopy(spec.input_schema)
    schema["properties"]["timeoutSeconds"] = {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_WAIT_SECONDS,
        "default": MAX_WAIT_SECONDS,
    }
    return replace(
        spec,
        description=wait_description(MAX_WAIT_SECONDS, progress=True, terminal=terminal)
        if spec.name == WAIT_TOOL
        else spec.description,
        input_schema=schema,
        query_params=tuple(name for name in spec.query_params if name != "timeoutSeconds"),
        round_seconds=int(rest_timeout.get("maximum", 25)),
        done_field=long_poll["field"],
        done_values=tuple(long_poll["values"]),
    )
