"""moto's botocore stubber (where every boto3 call enters moto), made atomic per request, logged and announced.

Harness H1: each AWS request is atomic, as it is server-side (moto's conditional writes are not), and the
sandbox records every request as ``service.Operation`` so that tests can say which calls a step made. Every write
to a DynamoDB table is announced (:class:`TableChanges`): what the API's long polls wait for is recorded there.

moto lists the methods of a service's response class (``inspect.getmembers``) at every request to find the
action's; the list is kept per class while the stubber is installed.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

import moto.core.responses
from moto.core.botocore_stubber import BotocoreStubber

from sandbox.aws.patches import Patches

DYNAMODB_WRITES = frozenset(
    f"dynamodb.{action}" for action in ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")
)


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


class TableChanges:
    """A count of the writes to the account's DynamoDB tables, and a wait for the next one."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._count = 0

    def count(self) -> int:
        with self._changed:
            return self._count

    def announce(self) -> None:
        with self._changed:
            self._count += 1
            self._changed.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        """Return at once if the count is past ``seen``, else at the next write or after ``timeout`` s; the count."""
        with self._changed:
            self._changed.wait_for(lambda: self._count != seen, timeout)
            return self._count


class SerializedStubber:
    """Installs the serialized, logged ``BotocoreStubber.__call__`` (process-wide, like moto's own patching)."""

    lock = threading.RLock()
    log = AwsCallLog()
    table_changes = TableChanges()
    _patches = Patches()
    _installed = False

    @classmethod
    def install(cls) -> None:
        """Install on moto; once per process at a time (a second would wrap, and keep, the first's method lists)."""
        if cls._installed:
            raise RuntimeError("The serialized stubber is already installed: uninstall it first.")
        cls._installed = True
        original = BotocoreStubber.__call__

        def call(stubber: BotocoreStubber, event_name: str, request: Any, **kwargs: Any) -> Any:
            # event_name is botocore's `before-send.<service>.<Operation>`.
            operation = event_name.split(".", 1)[-1]
            cls.log.record(operation)
            # A Lambda invocation runs a whole step; the step's own AWS calls take the lock one by one.
            if "/functions/" in request.url and request.url.endswith("/invocations"):
                return original(stubber, event_name, request, **kwargs)
            with cls.lock:
                response = original(stubber, event_name, request, **kwargs)
            if operation in DYNAMODB_WRITES:
                cls.table_changes.announce()
            return response

        cls._patches.replace(BotocoreStubber, "__call__", call)
        cls._patches.replace(
            moto.core.responses, "method_names_from_class", cache(moto.core.responses.method_names_from_class)
        )

    @classmethod
    def uninstall(cls) -> None:
        cls._patches.restore()
        cls._installed = False
