"""Builds the REST application: routers, authentication, audit, error mapping, OpenAPI."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from api import body, errors
from api.authorization import authorize, weakest_role
from api.errors import ErrorBody
from api.routers import catalog, clusters, features, instance_groups, jobs, nodes, operations, quotas

TITLE = "InstantStart control plane API"
DESCRIPTION = (
    "Creates and operates SageMaker HyperPod clusters on EKS. Long-running requests return 202 with an "
    "operation; poll it with GET /operations/{operationId}/wait until it is terminal."
)
# API Gateway serves IAM (SigV4) callers under /iam; the routes are the same.
IAM_PREFIX = "/iam"


@cache
def build() -> APIGatewayRestResolver:
    app = APIGatewayRestResolver(enable_validation=True, strip_prefixes=[IAM_PREFIX], json_body_deserializer=body.loads)
    errors.register(app)
    app.use([authorize])
    app.include_router(clusters.router)
    app.include_router(instance_groups.router)
    app.include_router(nodes.router)
    app.include_router(operations.router)
    app.include_router(catalog.router)
    app.include_router(quotas.router)
    app.include_router(features.router)
    app.include_router(jobs.router)
    app.enable_swagger(path="/docs", title=TITLE, description=DESCRIPTION, version="1.0.0")

    @app.get("/openapi.json", include_in_schema=False)
    def openapi_route() -> Response[str]:
        """The document, and the caller's role in `X-InstantStart-Role` (the MCP server offers tools by it)."""
        role = app.context["actor"].role.name.lower()
        return Response(
            status_code=200,
            content_type="application/json",
            body=json.dumps(openapi_document()),
            headers={"X-InstantStart-Role": role},
        )

    return app


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document, with the error responses every route really gives (one ErrorBody schema) and the
    weakest role that may call each operation (`x-required-role`, from `api.authorization`)."""
    document: dict[str, Any] = json.loads(
        build().get_openapi_json_schema(title=TITLE, description=DESCRIPTION, version="1.0.0")
    )
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    # Validation failures answer with ErrorBody (400), so FastAPI-style validation schemas are dropped.
    for unused in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        schemas.pop(unused, None)
    schemas["ErrorBody"] = ErrorBody.model_json_schema()
    error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}}
    for route, path in document["paths"].items():
        for method, operation in path.items():
            operation["x-required-role"] = weakest_role(method.upper(), route).name.lower()
            responses = operation["responses"]
            responses.pop("422", None)
            for status, meaning in ERROR_RESPONSES.items():
                responses[status] = {**error, "description": meaning}
    return document


ERROR_RESPONSES = {
    "400": "Invalid request: the message names what to change",
    "401": "Not authenticated",
    "403": "The caller's role does not allow this",
    "404": "Not found",
    "409": "Conflict with the current state (busy cluster, reused key, ...)",
}
