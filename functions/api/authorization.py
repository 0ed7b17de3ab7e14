"""Who may call what: the role each route needs, declared once here and enforced by one middleware.

`PERMISSIONS` maps every route (method and path as the OpenAPI document names them) to the role it needs and
the action a refusal names. Two routes need more for some requests: storage that creates an FSx file system
enables a feature (admin), and a node batch that replaces or deletes nodes is destructive (admin). Routes not
in the table (the API description and documentation, unknown paths that answer 404) need an authenticated
caller; a unit test keeps every documented route in the table.

`authorize` runs before every route: no identity → 401, a weaker role → 403. Request validation runs before
it, so a malformed request answers 400 whatever the caller's role; checks against live state (404, 409) run
after it, in the route.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from pydantic import ConfigDict, TypeAdapter

from api.auth import actor_of
from controlplane.core.auth import Role

DESTRUCTIVE_NODE_ACTIONS = {"replace", "delete"}


@dataclass(frozen=True)
class Permission:
    role: Role
    action: str


@dataclass(frozen=True)
class RouteRequest:
    """What a request-dependent permission reads: the JSON body. A plan (`dryRun`) needs the role the request
    itself needs, so a plan never promises what the real call would refuse."""

    body: Mapping[str, Any]


Rule = Permission | Callable[[RouteRequest], Permission]

READ = Permission(Role.VIEWER, "read")


def _storage(request: RouteRequest) -> Permission:
    if request.body.get("fsx") is not None:
        return Permission(Role.ADMIN, "create an FSx file system (it enables the fsxCsiDriver feature)")
    return Permission(Role.OPERATOR, "configure storage")


def _node_batch(request: RouteRequest) -> Permission:
    action = str(request.body.get("action"))
    return Permission(Role.ADMIN if action in DESTRUCTIVE_NODE_ACTIONS else Role.OPERATOR, f"{action} nodes")


PERMISSIONS: dict[str, Rule] = {
    # clusters
    "GET /clusters": READ,
    "POST /clusters": Permission(Role.ADMIN, "create a cluster"),
    "POST /clusters/eks": Permission(Role.ADMIN, "create an EKS cluster"),
    "POST /clusters/import": Permission(Role.ADMIN, "import a cluster"),
    "GET /clusters/{clusterTag}": READ,
    "DELETE /clusters/{clusterTag}": Permission(Role.ADMIN, "delete a cluster"),
    "POST /clusters/{clusterTag}/dependencies": Permission(Role.ADMIN, "configure cluster dependencies"),
    "POST /clusters/{clusterTag}/hyperpod": Permission(Role.ADMIN, "create a HyperPod cluster"),
    "POST /clusters/{clusterTag}/storage": _storage,
    "GET /clusters/{clusterTag}/status": READ,
    # features
    "GET /clusters/{clusterTag}/features": READ,
    "PATCH /clusters/{clusterTag}/features": Permission(Role.ADMIN, "change cluster features"),
    # instance groups
    "GET /clusters/{clusterTag}/instance-groups": READ,
    "POST /clusters/{clusterTag}/instance-groups": Permission(Role.ADMIN, "add an instance group"),
    "PATCH /clusters/{clusterTag}/instance-groups/{name}": Permission(Role.ADMIN, "change an instance group"),
    "DELETE /clusters/{clusterTag}/instance-groups/{name}": Permission(Role.ADMIN, "delete an instance group"),
    "POST /clusters/{clusterTag}/software-update": Permission(Role.ADMIN, "update cluster software"),
    # nodes
    "GET /clusters/{clusterTag}/nodes": READ,
    "GET /clusters/{clusterTag}/nodes/{nodeId}/history": READ,
    # events and remediation
    "GET /clusters/{clusterTag}/events": READ,
    "GET /clusters/{clusterTag}/remediation-policy": READ,
    "PUT /clusters/{clusterTag}/remediation-policy": Permission(Role.ADMIN, "set the remediation policy"),
    "POST /clusters/{clusterTag}/nodes/{nodeId}/reboot": Permission(Role.OPERATOR, "reboot nodes"),
    "POST /clusters/{clusterTag}/nodes/{nodeId}/replace": Permission(Role.ADMIN, "replace nodes"),
    "DELETE /clusters/{clusterTag}/nodes/{nodeId}": Permission(Role.ADMIN, "delete nodes"),
    "POST /clusters/{clusterTag}/nodes/batch": _node_batch,
    # monitoring
    "GET /clusters/{clusterTag}/overview": READ,
    "GET /clusters/{clusterTag}/pods": READ,
    # training jobs
    "GET /clusters/{clusterTag}/jobs": READ,
    "POST /clusters/{clusterTag}/jobs": Permission(Role.OPERATOR, "submit a training job"),
    "GET /clusters/{clusterTag}/jobs/{jobName}": READ,
    "GET /clusters/{clusterTag}/jobs/{jobName}/logs": READ,
    "DELETE /clusters/{clusterTag}/jobs/{jobName}": Permission(Role.OPERATOR, "delete a training job"),
    "POST /clusters/{clusterTag}/jobs/from-recipe": Permission(Role.OPERATOR, "submit a training job"),
    "GET /clusters/{clusterTag}/mlflow-tracking-servers": READ,
    # managed inference endpoints
    "GET /clusters/{clusterTag}/endpoints": READ,
    "POST /clusters/{clusterTag}/endpoints": Permission(Role.OPERATOR, "create an inference endpoint"),
    "GET /clusters/{clusterTag}/endpoints/{name}": READ,
    "POST /clusters/{clusterTag}/endpoints/{name}/chat": Permission(Role.OPERATOR, "call an inference endpoint"),
    "DELETE /clusters/{clusterTag}/endpoints/{name}": Permission(Role.OPERATOR, "delete an inference endpoint"),
    # recipes
    "GET /recipes": READ,
    "GET /recipes/{recipeName}": READ,
    # self-managed model servers, the model pool, calling a model
    "GET /clusters/{clusterTag}/deployments": READ,
    "POST /clusters/{clusterTag}/deployments": Permission(Role.OPERATOR, "deploy a model server"),
    "GET /clusters/{clusterTag}/deployments/{name}": READ,
    "PATCH /clusters/{clusterTag}/deployments/{name}": Permission(Role.OPERATOR, "update a model server"),
    "DELETE /clusters/{clusterTag}/deployments/{name}": Permission(Role.OPERATOR, "delete a model server"),
    "GET /clusters/{clusterTag}/model-pool": READ,
    "POST /clusters/{clusterTag}/model-pool": Permission(Role.OPERATOR, "bind or unbind a pool worker"),
    "GET /clusters/{clusterTag}/services": READ,
    "GET /clusters/{clusterTag}/services/public": READ,
    "POST /clusters/{clusterTag}/services/{name}/chat": Permission(Role.OPERATOR, "call a model"),
    # the S3 claim's contents
    "POST /clusters/{clusterTag}/downloads": Permission(Role.OPERATOR, "download a model or dataset"),
    "GET /clusters/{clusterTag}/storage/contents": READ,
    # drift: a check changes nothing in the cluster (it reads and stores its report), so those who act may run it
    "GET /clusters/{clusterTag}/drift": READ,
    "POST /clusters/{clusterTag}/drift": Permission(Role.OPERATOR, "run a drift check"),
    "GET /clusters/{clusterTag}/cost": READ,
    # operations
    "GET /operations": READ,
    "GET /operations/{operationId}": READ,
    "GET /operations/{operationId}/wait": READ,
    "POST /operations/{operationId}/resume": Permission(Role.ADMIN, "resume an operation"),
    "POST /operations/{operationId}/cancel": Permission(Role.ADMIN, "cancel an operation"),
    # identity and audit: the trail names people and their refusals, so it is for those who act (operator up)
    "GET /me": READ,
    "GET /audit": Permission(Role.OPERATOR, "read the audit trail"),
    # catalog
    "GET /regions": READ,
    "GET /regions/{region}/availability-zones": READ,
    "GET /regions/{region}/instance-types": READ,
    "GET /regions/{region}/training-plans": READ,
    "GET /regions/{region}/quotas": READ,
}

_BOOL = TypeAdapter(bool, config=ConfigDict(defer_build=True))


def required(method: str, route: str, request: Callable[[], RouteRequest]) -> Permission:
    """The permission a request to `method route` needs (`request` is read only by request-dependent rules)."""
    rule = PERMISSIONS.get(f"{method} {route}", READ)
    return rule if isinstance(rule, Permission) else rule(request())


def weakest_role(method: str, route: str) -> Role:
    """The weakest role that may call `method route` with some request (what the MCP server's tool list offers)."""
    rule = PERMISSIONS.get(f"{method} {route}", READ)
    return rule.role if isinstance(rule, Permission) else rule(RouteRequest(body={})).role


def authorize(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[str]:
    """Authenticate the caller, check the route's permission, and hand the actor to the route."""
    actor = actor_of(app.current_event)
    request = app.request

    def route_request() -> RouteRequest:
        body = request.json_body
        return RouteRequest(body=body if isinstance(body, dict) else {})

    permission = required(request.method, request.route, route_request)
    actor.require(permission.role, permission.action)
    app.append_context(actor=actor)
    return next_middleware(app)
