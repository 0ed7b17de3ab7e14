"""SageMaker Runtime InvokeEndpoint on the endpoints the simulated inference operator registers.

moto answers every InvokeEndpoint with canned data, whatever the endpoint. Here an endpoint exists only while the
simulated operator (`sandbox.k8s.inference`) has it registered, and it answers an OpenAI chat completion with an
echo model that says it is a sandbox model; any other name is refused as SageMaker does (ValidationError, endpoint
not found). Patches ``SageMakerRuntimeResponse.invoke_endpoint``.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any
from urllib.parse import unquote

from moto.core.exceptions import JsonRESTError
from moto.sagemakerruntime.responses import SageMakerRuntimeResponse

from sandbox.aws.patches import Patches

SANDBOX_MODEL = "sandbox-echo"


def echo_completion(endpoint: str, request: dict[str, Any], number: int) -> dict[str, Any]:
    """An OpenAI chat completion that repeats the last user message and says that a sandbox model answered."""
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    said = next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
    content = f"[sandbox model on {endpoint}; no real inference] You said: {said}"
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
    completion_tokens = len(content.split())
    return {
        "id": f"chatcmpl-sandbox-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": SANDBOX_MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class SageMakerRuntimeExtension:
    def __init__(self) -> None:
        self._patches = Patches()
        self._lock = threading.Lock()
        self._endpoints: set[str] = set()
        self._calls = 0

    def register(self, endpoint: str) -> None:
        """The endpoint is InService and answers invocations."""
        with self._lock:
            self._endpoints.add(endpoint)

    def deregister(self, endpoint: str) -> None:
        with self._lock:
            self._endpoints.discard(endpoint)

    def registered(self, endpoint: str) -> bool:
        with self._lock:
            return endpoint in self._endpoints

    def install(self) -> None:
        extension = self

        def invoke_endpoint(response: SageMakerRuntimeResponse) -> tuple[int, dict[str, str], str]:
            endpoint = unquote(response.path.split("/")[2])
            if not extension.registered(endpoint):
                raise JsonRESTError(
                    "ValidationError", f"Endpoint {endpoint} of account {response.current_account} not found."
                )
            raw = response.body
            try:
                request = json.loads(raw.decode() if isinstance(raw, bytes) else raw or "{}")
            except ValueError:
                raise JsonRESTError("ModelError", "The sandbox model reads a JSON chat completion request.") from None
            with extension._lock:
                extension._calls += 1
                number = extension._calls
            answer = echo_completion(endpoint, request if isinstance(request, dict) else {}, number)
            return 200, {"Content-Type": "application/json"}, json.dumps(answer)

        self._patches.replace(SageMakerRuntimeResponse, "invoke_endpoint", invoke_endpoint)

    def uninstall(self) -> None:
        self._patches.restore()
