"""An in-memory SageMaker Runtime: endpoints that answer a chat completion by echoing the last message."""

from __future__ import annotations

from typing import Any

from controlplane.core.endpoints.errors import EndpointUnavailableError


class InMemoryModelEndpointGateway:
    def __init__(self) -> None:
        self.in_service: set[str] = set()
        self.calls: list[tuple[str, dict[str, Any]]] = []
        # What every endpoint answers instead of the echo, when set.
        self.answer: dict[str, Any] | None = None

    def invoke(self, endpoint_name: str, body: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((endpoint_name, body))
        if endpoint_name not in self.in_service:
            raise EndpointUnavailableError(f"SageMaker endpoint {endpoint_name} is not available.")
        if self.answer is not None:
            return self.answer
        text = body["messages"][-1]["content"]
        message = {"role": "assistant", "content": f"echo: {text}"}
        return {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}
