"""What moto gets wrong for Step Functions: StopExecution right after StartExecution fails, because the
execution's worker has no environment yet. Patches moto's ``ExecutionWorker.stop`` to wait for it (5 s at most).
"""

from __future__ import annotations

import time
from typing import Any

from moto.stepfunctions.parser.backend.execution_worker import ExecutionWorker

from sandbox.aws.patches import Patches


class StepFunctionsExtension:
    def __init__(self) -> None:
        self._patches = Patches()

    def install(self) -> None:
        original = ExecutionWorker.stop

        def stop(worker: ExecutionWorker, stop_date: Any, error: Any, cause: Any) -> None:
            deadline = time.monotonic() + 5
            while getattr(worker, "env", None) is None and time.monotonic() < deadline:
                time.sleep(0.01)
            original(worker, stop_date=stop_date, error=error, cause=cause)

        self._patches.replace(ExecutionWorker, "stop", stop)

    def uninstall(self) -> None:
        self._patches.restore()
