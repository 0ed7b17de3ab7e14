"""SageMaker Runtime: calling the SageMaker endpoint that the HyperPod inference operator registers."""

from __future__ import annotations

from typing import Any, Protocol


class ModelEndpointGateway(Protocol):
    def invoke(self, endpoint_name: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST `body` as JSON to the endpoint (InvokeEndpoint) and return its JSON answer.

        Raises `core.endpoints.errors.EndpointUnavailableError` when SageMaker has no such endpoint (or it is not
        InService), and `DependencyFailedError` when the model answered with an error."""
