"""Builds the REST application: routers, authentication, audit, error mapping, OpenAPI."""

from __future__ import annotations

from functools import cache

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware

from api import errors
from api.auth import actor_of
from api.routers import clusters, operations
from controlplane.core.auth import Role

TITLE = "InstantStart control plane API"
DESCRIPTION = (
    "Creates and operates SageMaker HyperPod clusters on EKS. Long-running requests return 202 with an "
    "operation; poll it with GET /operations/{operationId}/wait until it is terminal."
)
# API Gateway serves IAM (SigV4) callers under /iam; the routes are the same.
IAM_PREFIX = "/iam"


def authenticate(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[str]:
    actor = actor_of(app.current_event)
    actor.require(Role.VIEWER, "read")
    app.append_context(actor=actor)
    return next_middleware(app)


@cache
def build() -> APIGatewayRestResolver:
    app = APIGatewayRestResolver(enable_validation=True, strip_prefixes=[IAM_PREFIX])
    errors.register(app)
    app.use([authenticate])
    app.include_router(clusters.router)
    app.include_router(operations.router)
    app.enable_swagger(path="/docs", title=TITLE, description=DESCRIPTION, version="1.0.0")

    @app.get("/openapi.json", include_in_schema=False)
    def openapi_document() -> Response[str]:
        return Response(
            status_code=200,
            content_type="application/json",
            body=app.get_openapi_json_schema(title=TITLE, description=DESCRIPTION, version="1.0.0"),
        )

    return app
