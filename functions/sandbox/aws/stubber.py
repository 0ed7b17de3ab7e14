"""moto's botocore stubber (where every boto3 call enters moto), made atomic per request and logged.

Harness H1: each AWS request is atomic, as it is server-side (moto's conditional writes are not), and the
sandbox records every request as ``service.Operation`` so that tests can say which calls a step made.
"""

from __future__ import annotations

import threading
from typing import Any

from moto.core.botocore_stubber import BotocoreStubber


class AwsCallLog:
    """Every AWS request the sandbox served, as `service.Operation` (e.g. `eks.CreateAddon`), in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[str] = []

    def record(self, call: str) -> None:
        with self._lock:
            self._calls.append(call)

    def mark(self) -> int:
        with self._lock:
            return len(self._calls)

    def since(self, mark: int) -> list[str]:
        with self._lock:
            return list(self._calls[mark:])


class SerializedStubber:
    """Installs the serialized, logged ``BotocoreStubber.__call__`` (process-wide, like moto's own patching)."""

    lock = threading.RLock()
    original: Any = None
    log = AwsCallLog()

    @classmethod
    def install(cls) -> None:
        cls.original = original = BotocoreStubber.__call__

        def call(stubber: BotocoreStubber, event_name: str, request: Any, **kwargs: Any) -> Any:
            # event_name is botocore's `before-send.<service>.<Operation>`.
            cls.log.record(event_name.split(".", 1)[-1])
            # A Lambda invocation runs a whole step; the step's own AWS calls take the lock one by one.
            if "/functions/" in request.url and request.url.endswith("/invocations"):
                return original(stubber, event_name, request, **kwargs)
            with cls.lock:
                return original(stubber, event_name, request, **kwargs)

        BotocoreStubber.__call__ = call  # type: ignore[method-assign,assignment]

    @classmethod
    def uninstall(cls) -> None:
        if cls.original is not None:
            BotocoreStubber.__call__ = cls.original  # type: ignore[method-assign]
