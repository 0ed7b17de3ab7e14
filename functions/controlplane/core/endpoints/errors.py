"""The refusals of managed inference endpoints, each mapped to a 4xx whose message says what to change."""

from __future__ import annotations

from controlplane.models.errors import ConflictError, NotFoundError


class EndpointNotFoundError(NotFoundError):
    code = "EndpointNotFound"


class EndpointNameInUseError(ConflictError):
    code = "EndpointNameInUse"


class RoutingImmutableError(ConflictError):
    """Intelligent routing is fixed when the endpoint is created."""

    code = "RoutingImmutable"


class EndpointNotReadyError(ConflictError):
    """The endpoint is not DeploymentComplete yet (or is being deleted), so it cannot be called."""

    code = "EndpointNotReady"


class EndpointUnavailableError(ConflictError):
    """SageMaker has no InService endpoint of that name (raised by the SageMaker Runtime adapter)."""

    code = "EndpointUnavailable"
