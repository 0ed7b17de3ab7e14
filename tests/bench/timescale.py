"""A faster clock for the sandbox's workflows, so that hours of AWS provisioning run in minutes at their proportions.

Inside `TimeScale(factor)` one real second stands for `factor` seconds of the simulated account: the control plane's
clock (`wiring.clock()`: what a wait loop measures its back-off and deadline with) runs `factor` times faster than
the wall clock from the moment the block starts, and moto's Step Functions interpreter sleeps a Wait state's seconds
and a Retry's interval divided by `factor`. So a wait loop asks for the waits it would ask for on AWS, and they last
what they would on AWS, at scale. The step Lambdas, Step Functions' transitions and event delivery run at the
machine's speed; `tests/bench/test_pipeline_overhead.py` counts their time unscaled. A task token's timeout (an
event-ended wait's fallback) is not scaled: in the benchmark the event ends the wait first.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace, TracebackType
from typing import Any

import pytest
from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl
from moto.stepfunctions.parser.asl.component.state.wait.wait_function.wait_function import WaitFunction

from controlplane import wiring


class TimeScale:
    def __init__(self, factor: float) -> None:
        self.factor = factor
        self._patch = pytest.MonkeyPatch()
        self._wall = datetime.now(UTC)
        self._origin = time.monotonic()

    def now(self) -> datetime:
        """The simulated account's time."""
        return self._wall + timedelta(seconds=(time.monotonic() - self._origin) * self.factor)

    def real_seconds(self, simulated: float) -> float:
        return simulated / self.factor

    def __enter__(self) -> TimeScale:
        self._wall, self._origin = datetime.now(UTC), time.monotonic()
        factor = self.factor

        def wait_interval(state: Any, env: Any, wait_seconds: int) -> None:
            if wait_seconds > 0:
                env.program_state_event.wait(wait_seconds / factor)

        self._patch.setattr(WaitFunction, "_wait_interval", wait_interval)
        self._patch.setattr(retrier_decl, "time", SimpleNamespace(sleep=lambda seconds: time.sleep(seconds / factor)))
        self._patch.setattr(type(wiring.clock()), "now", lambda clock: self.now())
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._patch.undo()
