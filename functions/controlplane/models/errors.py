"""Typed domain errors, named for whoever matches them.

Each surface maps them once: the REST API to an HTTP status and the error body, the workflow to
an ASL error name (the class name), the MCP server to a tool error. Messages tell a person or an
agent what to change.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """Base of every error the control plane raises on purpose."""

    status = 500
    code = "InternalError"
    # Seconds after which the same request may succeed (REST: the Retry-After header); None: retrying is no remedy.
    retry_after: int | None = None

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


class InvalidRequestError(DomainError):
    status = 400
    code = "InvalidRequest"


class UnknownRegionError(InvalidRequestError):
    code = "UnknownRegion"


class UnsupportedRegionError(InvalidRequestError):
    """A Region AWS offers but where an image every HyperPod cluster needs has no registry (details: the images and
    the Regions that have them)."""

    code = "UnsupportedRegion"


class CidrConflictError(InvalidRequestError):
    code = "CidrConflict"


class ConfirmationRequiredError(InvalidRequestError):
    code = "ConfirmationRequired"


class PreflightFailedError(InvalidRequestError):
    """A quota, the subnet's addresses or a training plan's capacity cannot take the request; details list the
    checks (each failing one names what to raise and where)."""

    code = "PreflightFailed"


class TrainingPlanOfferingUnavailableError(InvalidRequestError):
    """A training plan offering that is unknown or no longer offered (offerings expire): search again."""

    code = "TrainingPlanOfferingUnavailable"


class KubernetesObjectRejectedError(InvalidRequestError):
    """A cluster's Kubernetes API refused an object the control plane wrote (a field or value its schema refuses)."""

    code = "KubernetesObjectRejected"


class UnsupportedMediaTypeError(DomainError):
    """A body in a media type the API does not read (it reads JSON)."""

    status = 415
    code = "UnsupportedMediaType"


class AuthenticationRequiredError(DomainError):
    status = 401
    code = "Unauthenticated"


class ForbiddenError(DomainError):
    status = 403
    code = "Forbidden"


class NotFoundError(DomainError):
    status = 404
    code = "NotFound"


class ClusterNotFoundError(NotFoundError):
    code = "ClusterNotFound"


class OperationNotFoundError(NotFoundError):
    code = "OperationNotFound"


class ConflictError(DomainError):
    status = 409
    code = "Conflict"


class ClusterExistsError(ConflictError):
    code = "ClusterExists"


class ClusterNotReadyError(ConflictError):
    """The cluster has not finished the stage the request builds on."""

    code = "ClusterNotReady"


class ClusterAccessDeniedError(ConflictError):
    """The cluster's Kubernetes API refuses the control plane (its access entry is missing or does not allow the call);
    details name the EKS cluster and the role."""

    code = "ClusterAccessDenied"


class ClusterBusyError(ConflictError):
    code = "ClusterBusy"


class OperationStateError(ConflictError):
    code = "OperationStateConflict"


class StaleOperationError(ConflictError):
    """The operation was created for another incarnation of its cluster (deleted since, maybe created again under the
    same tag); details name both incarnations (the cluster's is None when it no longer exists)."""

    code = "StaleOperation"


class FeatureNotEnabledError(ConflictError):
    """A request needs a cluster feature that is off; the message names it and how to enable it."""

    code = "FeatureNotEnabled"


class FeatureDependencyError(ConflictError):
    """A feature change would leave a feature without a feature it needs."""

    code = "FeatureDependency"


class StaleVersionError(ConflictError):
    """A conditional write lost the race: someone else advanced the record first."""

    code = "StaleVersion"


class TrainingPlanExistsError(ConflictError):
    code = "TrainingPlanExists"


class ForeignResourceError(ConflictError):
    """A resource with our deterministic name exists but does not carry our ownership tags."""

    code = "ForeignResource"


class DependencyFailedError(DomainError):
    """Something the workflow installed reports a failure that needs a person (e.g. an add-on CREATE_FAILED)."""

    status = 502
    code = "DependencyFailed"


class WorkflowStartRefusedError(DomainError):
    """Step Functions refused to start a workflow for now (its open-executions limit, throttling): nothing of the
    operation ran, and the request may be repeated after `retry_after` seconds."""

    status = 503
    code = "WorkflowStartRefused"
    retry_after = 30


class NodeNotRecoveredError(DomainError):
    """A node action ended but the node did not recover (a rebooted node HyperPod still holds out of scheduling):
    what fixes it is another action (replace), not resuming this one."""

    status = 409
    code = "NodeNotRecovered"


class ResourceNotReadyError(DomainError):
    """A dependency is still being created; the workflow retries the step after a pause."""

    status = 503
    code = "ResourceNotReady"


class WaitTimeoutError(DomainError):
    """A wait loop passed its deadline (`core.deadlines`); resuming the operation waits again."""

    status = 504
    code = "WaitTimeout"
