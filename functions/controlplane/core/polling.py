"""Wait loops: when a check step asks its workflow to check again, and when the wait gives up.

A workflow waits with Task(check) → Choice(`$.poll.done`) → Wait(`SecondsPath: $.poll.waitSeconds`) → Task (see
`controlplane.workflows.asl`). A check step observes live state, then hands `Poller.poll` what it waits for
(`Wait`: a description and a deadline from `core.deadlines`) and whether it is done; the poller returns the
loop's next `PollState`:
- usual duration: work that takes AWS a known least time (an EKS control plane, an FSx file system: `Wait.usually`)
  is checked once at the start (a failure, or work already done, shows at once), then not before that time has
  passed; the back-off counts from there;
- back-off: the next wait is a twentieth of the time already waited (past the usual duration), at least
  `first_wait_seconds` and at most `max_wait_seconds` (5 s → 2 h on AWS), so completion is noticed within about 5 %
  of the time the work took past its usual (a minute's add-on within 5 s; a 10-minute EKS control plane, usually 8,
  within 5 s rather than the 30 s of a back-off from its start: what the waits without an event add to a pipeline,
  `tests/bench/test_pipeline_overhead.py`) and a 72-hour wait stays below a tenth of Step Functions' 25,000-event
  history limit (`tests/workflows/test_workflow_history.py`);
- deadline: once the wait has lasted its deadline, the check fails with `WaitTimeoutError`, saying what it waited
  for and for how long (the last wait ends at the deadline); `POST /operations/{id}/resume` runs the workflow
  again, which waits afresh.
The loop's start (`PollState.startedAt`) travels in the execution state, so every check measures the same wait.

Completion by event (day two): a loop whose waits an event ends early (`$.poll.byEvent`, set by its ASL) keeps
this check as the fallback, with the same `Wait` and deadline; its back-off is `EVENT_FALLBACK_FACTOR` times as
long (first wait, growth and maximum), because the fallback only catches a missed event, and because each of its
rounds costs more history (a task-token Task instead of a Wait).

Long polls (`long_poll`): a request that waits for an operation or a workload re-reads it until it is done, for at most
`MAX_WAIT_SECONDS` (well inside API Gateway's 29 s), and answers with what it read last.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar

from controlplane.core.ports.persistence import Clock
from controlplane.models.errors import WaitTimeoutError
from controlplane.models.operations import MAX_WAIT_SECONDS
from controlplane.models.workflow import PollState, WorkflowState

BACKOFF_FRACTION = 0.05
"""The next wait, as a fraction of the time already waited (before the first and maximum bounds)."""
EVENT_FALLBACK_FACTOR = 2
"""An event-ended loop's waits, as a multiple of a polled loop's."""

Read = TypeVar("Read")


@dataclass(frozen=True)
class PollSettings:
    """The bounds of the back-off: the sandbox sets both near zero so that its waits take no time."""

    first_wait_seconds: int
    max_wait_seconds: int

    def wait_seconds(self, waited: timedelta, by_event: bool = False, usually: timedelta = timedelta(0)) -> int:
        """Seconds to wait before the next check, after `waited` of waiting (`by_event`: an event ends it early) for
        work that usually takes `usually`: until then (in one wait, as long as a wait may last), then the back-off
        from there."""
        early = math.ceil((usually - waited).total_seconds())
        if early > 0:
            return min(early, self.max_wait_seconds)
        factor = EVENT_FALLBACK_FACTOR if by_event else 1
        grown = int((waited - usually).total_seconds() * BACKOFF_FRACTION * factor)
        return min(self.max_wait_seconds * factor, max(self.first_wait_seconds * factor, grown))


@dataclass(frozen=True)
class Wait:
    """What a loop waits for, as a person reads it ("EKS cluster eks-cluster-demo to be ACTIVE"), how long the work may
    take before the operation fails, and the least it usually takes (no check in between; counted from the loop's
    first check, so a resumed loop waits it again)."""

    what: str
    deadline: timedelta
    usually: timedelta = timedelta(0)


class Poller:
    def __init__(self, settings: PollSettings, clock: Clock) -> None:
        self._settings = settings
        self._clock = clock

    def poll(self, ctx: WorkflowState, wait: Wait, *, done: bool, status: str | None) -> PollState:
        """The loop's next state after this check; `WaitTimeoutError` once the deadline has passed undone."""
        now = self._clock.now()
        started = ctx.poll.startedAt if ctx.poll and ctx.poll.startedAt else now
        by_event = bool(ctx.poll and ctx.poll.byEvent)
        waited = now - started
        if not done and waited >= wait.deadline:
            raise WaitTimeoutError(
                f"Gave up after waiting {duration(waited)} (this wait's deadline: {duration(wait.deadline)}) for "
                f"{wait.what}; its status is {status or 'unknown'}. Fix what holds it up, if anything does; "
                f"POST /operations/{ctx.operationId}/resume continues waiting."
            )
        # The last wait ends at the deadline, so a wait that runs out fails then, not up to a back-off later.
        until_deadline = max(0, math.ceil((wait.deadline - waited).total_seconds()))
        return PollState(
            done=done,
            attempts=ctx.attempt(),
            waitSeconds=min(self._settings.wait_seconds(waited, by_event, wait.usually), until_deadline),
            status=status,
            startedAt=started,
        )


def duration(span: timedelta) -> str:
    """A span as a person reads it: `45 min`, `2 h 05 min`, `50 s`."""
    seconds = int(span.total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


@dataclass(frozen=True)
class LongPoll:
    """How a request waits: `clock` sleeps `every_seconds` between two reads (in the sandbox, its sleep also ends at
    the next table write, and lends the API to other requests meanwhile)."""

    clock: Clock
    every_seconds: float

    def until(self, read: Callable[[], Read], done: Callable[[Read], bool], timeout_seconds: float) -> Read:
        """Read until `done`, or until `timeout_seconds` (at most MAX_WAIT_SECONDS) have passed; the last read."""
        deadline = self.clock.now().timestamp() + min(timeout_seconds, MAX_WAIT_SECONDS)
        value = read()
        while not done(value) and self.clock.now().timestamp() < deadline:
            self.clock.sleep(self.every_seconds)
            value = read()
        return value
