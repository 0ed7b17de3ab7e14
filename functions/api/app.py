"""The REST application: one resolver with authentication, error mapping, validation and the OpenAPI document,
into which each router module is loaded by the first request whose path it serves (`ROUTERS`).

Belongs here: handling one Lambda event (`handle`), which router serves which path, and the document. The
document, the Swagger UI and paths no router claims are served by the complete app (every router loaded), so
they stay complete; an ordinary request imports only its own router and that router's models.
"""

from __future__ import annotations

import json
import re
import threading
from functools import cache
from importlib import import_module
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from api import audit, body, errors, idempotency
from api.authorization import authenticate
from api.errors import ErrorBody

TITLE = "InstantStart control plane API"
DESCRIPTION = (
    "Creates and operates SageMaker HyperPod clusters on EKS. Long-running requests return 202 with an "
    "operation; poll it with GET /operations/{operationId}/wait until it is terminal."
)
# API Gateway serves IAM (SigV4) callers under /iam; the routes are the same.
IAM_PREFIX = "/iam"


# The router module (in api.routers) that serves each path, by the path's shape once the IAM prefix is stripped;
# the first match wins. A unit test keeps every route of every router matched to its own module.
ROUTERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"/clusters/[^/]+/(?:instance-groups|software-update)(?:/|$)"), "instance_groups"),
    # Before the nodes' row: a node's history is the events' route.
    (re.compile(r"/clusters/[^/]+/(?:events|remediation-policy|nodes/[^/]+/history)$"), "events"),
    (re.compile(r"/clusters/[^/]+/nodes(?:/|$)"), "nodes"),
    (re.compile(r"/clusters/[^/]+/health-checks$"), "health_checks"),
    (re.compile(r"/clusters/[^/]+/hyperpod-events$"), "hyperpod_activity"),
    (re.compile(r"/clusters/[^/]+/features(?:/|$)"), "features"),
    (re.compile(r"/clusters/[^/]+/(?:teams|scheduler-policy)(?:/|$)"), "teams"),
    (re.compile(r"/clusters/[^/]+/drift$"), "drift"),
    (re.compile(r"/clusters/[^/]+/cost$"), "cost"),
    # Before the jobs' row: …/jobs/from-recipe is the recipes' route (so `from-recipe` is no name for a job).
    (re.compile(r"(?:/clusters/[^/]+/jobs/from-recipe|/recipes(?:/[^/]+)?)$"), "recipes"),
    (re.compile(r"/clusters/[^/]+/jobs(?:/|$)"), "jobs"),
    (re.compile(r"/clusters/[^/]+/(?:downloads|storage/contents)(?:/|$)"), "downloads"),
    (re.compile(r"/clusters/[^/]+/deployments(?:/|$)"), "deployments"),
    (re.compile(r"/clusters/[^/]+/services(?:/|$)"), "services"),
    (re.compile(r"/clusters/[^/]+/model-pool$"), "model_pool"),
    (re.compile(r"/clusters/[^/]+/mlflow-tracking-servers$"), "mlflow"),
    (re.compile(r"/clusters/[^/]+/(?:overview|pods)$"), "monitoring"),
    (re.compile(r"/clusters/[^/]+/endpoints(?:/|$)"), "endpoints"),
    (re.compile(r"/clusters/[^/]+/spaces(?:/|$)"), "spaces"),
    (re.compile(r"/clusters(?:/|$)"), "clusters"),
    (re.compile(r"/operations(?:/|$)"), "operations"),
    (re.compile(r"/regions/[^/]+/quotas(?:/|$)"), "quotas"),
    (re.compile(r"/regions(?:/|$)"), "catalog"),
    (re.compile(r"/me$"), "identity"),
    (re.compile(r"/audit$"), "audit"),
)
DOCUMENTS = "documents"  # what `_load` calls the OpenAPI document and the Swagger UI
_loaded: set[str] = set()
_loading = threading.Lock()  # the sandbox serves requests on a thread while tests read the document on another


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Answer one API Gateway proxy event: route it, and audit the outcome."""
    idempotency.register_context(context)
    result = resolver_for(event.get("path") or "/").resolve(event, context)
    audit.record(event, result)
    return result


def router_for(path: str) -> str | None:
    """The router module that serves `path`, or None for a path no router claims (documents, unknown paths)."""
    path = _without_prefix(path)
    return next((name for pattern, name in ROUTERS if pattern.match(path)), None)


def allowed_methods(path: str) -> list[str]:
    """The methods the routes of `path` take, as its router declares them; none for a path no route declares."""
    name = router_for(path)
    if name is None:
        return []
    path = _without_prefix(path)
    declared = import_module(f"api.routers.{name}").router.permissions
    return sorted({key.split(" ", 1)[0] for key in declared if _template(key.split(" ", 1)[1]).fullmatch(path)})


def _without_prefix(path: str) -> str:
    if path == IAM_PREFIX or path.startswith(f"{IAM_PREFIX}/"):
        return path[len(IAM_PREFIX) :] or "/"
    return path


@cache
def _template(route: str) -> re.Pattern[str]:
    """A route's path as the document names it (`/clusters/{clusterTag}`), as a pattern of the paths it serves."""
    parts = re.split(r"({\w+})", route)
    return re.compile("".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts))


def resolver_for(path: str) -> APIGatewayRestResolver:
    """The app with the router that serves `path` loaded; the complete app for a path no router claims."""
    name = router_for(path)
    return _load([name]) if name else build()


def build() -> APIGatewayRestResolver:
    """The complete app: every router, the OpenAPI document and the Swagger UI."""
    return _load([*(name for _, name in ROUTERS), DOCUMENTS])


def _load(names: list[str]) -> APIGatewayRestResolver:
    app = _app()
    with _loading:
        for name in names:
            if name not in _loaded:
                if name == DOCUMENTS:
                    _serve_documents(app)
                else:
                    app.include_router(import_module(f"api.routers.{name}").router)
                _loaded.add(name)
    return app


@cache
def _app() -> APIGatewayRestResolver:
    app = APIGatewayRestResolver(enable_validation=True, strip_prefixes=[IAM_PREFIX], json_body_deserializer=body.loads)
    errors.register(app, allowed_methods)
    app.use([authenticate])
    return app


def _serve_documents(app: APIGatewayRestResolver) -> None:
    """The OpenAPI document and the Swagger UI (Powertools' OpenAPI models are imported for these alone)."""
    app.enable_swagger(path="/docs", title=TITLE, description=DESCRIPTION, version="1.0.0")

    @app.get("/openapi.json", include_in_schema=False)
    def openapi_route() -> Response[str]:
        """The document, and the caller's role in `X-InstantStart-Role` (the MCP server offers tools by it)."""
        role = app.context["actor"].role.name.lower()
        return Response(
            status_code=200,
            content_type="application/json",
            body=_openapi_json(),
            headers={"X-InstantStart-Role": role},
        )


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document, with the error responses every route really gives (one ErrorBody schema) and the
    weakest role that may call each operation (`x-required-role`, as the route declares it); paths in alphabetical
    order, whichever order requests loaded the routers in. A copy of its own for each caller."""
    document: dict[str, Any] = json.loads(_openapi_json())
    return document


@cache
def _openapi_json() -> str:
    """The document as served, built once per process: generating it from the routes' models takes a quarter of a
    second, and the MCP server reads it for every user it has not seen."""
    document: dict[str, Any] = json.loads(
        build().get_openapi_json_schema(title=TITLE, description=DESCRIPTION, version="1.0.0")
    )
    document["paths"] = dict(sorted(document["paths"].items()))
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    # Validation failures answer with ErrorBody (400), so FastAPI-style validation schemas are dropped.
    for unused in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        schemas.pop(unused, None)
    schemas["ErrorBody"] = ErrorBody.model_json_schema()
    error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}}
    for path in document["paths"].values():
        for operation in path.values():
            responses = operation["responses"]
            responses.pop("422", None)
            for status, meaning in ERROR_RESPONSES.items():
                responses[status] = {**error, "description": meaning}
            if "requestBody" in operation:
                responses["415"] = {**error, "description": UNSUPPORTED_MEDIA_TYPE}
    return json.dumps(document)


ERROR_RESPONSES = {
    "400": "Invalid request: the message names what to change",
    "401": "Not authenticated",
    "403": "The caller's role does not allow this",
    "404": "Not found",
    "409": "Conflict with the current state (busy cluster, reused key, ...)",
}
UNSUPPORTED_MEDIA_TYPE = "The body is not sent as Content-Type: application/json"
