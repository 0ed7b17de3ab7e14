"""The API's execution environment in the sandbox, shared by concurrent requests the way a Lambda's pool is.

Powertools keeps the request in hand on the resolver (the event and context are class attributes of its routers;
middlewares append to one context dict), so one process serves one API request at a time. In AWS a long poll
(`GET /operations/{id}/wait`) holds one environment while the others serve the console; here, a request that
sleeps lends the environment to others meanwhile and gets its request state back when it wakes. The API's clock
is the only thing that sleeps in a request, so the sandbox gives the API a clock whose sleep does that.

A request sleeps to read again what the workflows record in DynamoDB (an operation's status), so its sleep also
ends at the next write to a table, or at once if one came since its last sleep: a long poll answers as soon as the
operation ends, without re-reading it every few milliseconds meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import cache
from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import BaseRouter

from api import app
from controlplane import wiring
from sandbox.aws.stubber import TableChanges


class ApiEnvironment:
    def __init__(self, table_changes: TableChanges) -> None:
        self._table_changes = table_changes
        self._lock = threading.Lock()
        self._inside = threading.local()
        self._original_clock = wiring.clock

    def run(self, handler: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Run one API invocation in the environment, waiting for it to be free."""
        with self._lock:
            self._inside.active = True
            try:
                return handler()
            finally:
                self._inside.active = False

    def sleep(self, seconds: float) -> None:
        """Sleep; inside an invocation, until a table changes at the latest, letting other requests run meanwhile
        and restoring this one's state after."""
        if not getattr(self._inside, "active", False):
            time.sleep(seconds)
            return
        context = app.build().context
        saved = (BaseRouter.current_event, BaseRouter.lambda_context, dict(context))
        self._lock.release()
        try:
            self._inside.tables_seen = self._table_changes.wait(getattr(self._inside, "tables_seen", -1), seconds)
        finally:
            self._lock.acquire()
            BaseRouter.current_event, BaseRouter.lambda_context = saved[0], saved[1]
            context.clear()
            context.update(saved[2])

    def install(self) -> None:
        """From now on the control plane's clock sleeps through this environment."""
        environment = self

        class LendingClock(wiring.SystemClock):
            def sleep(self, seconds: float) -> None:
                environment.sleep(seconds)

        self._original_clock = wiring.clock
        wiring.clock = cache(LendingClock)  # type: ignore[assignment]
        wiring.reset()

    def uninstall(self) -> None:
        wiring.clock = self._original_clock  # type: ignore[method-assign]
        wiring.reset()
