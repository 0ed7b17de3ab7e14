"""Simulated time for HyperPod: transitions scheduled a fixed delay ahead, run when an operation comes by.

No thread runs them: :meth:`Scheduler.run_due` is called at the start of every operation. Tests pass their
own clock and move it by hand, or hold time still (:meth:`Scheduler.held`) while they read a transient state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sandbox.aws.hyperpod.model import Cluster


@dataclass
class _Task:
    due: float
    cluster: Cluster
    run: Callable[[], None]


class Scheduler:
    def __init__(
        self, seconds: float, clock: Callable[[], float], after: Callable[[Cluster], None] = lambda cluster: None
    ) -> None:
        """`after` is told of each transition once it has run (the simulation emits the cluster's event)."""
        self.seconds = seconds
        self._clock = clock
        self._after = after
        self._tasks: list[_Task] = []
        self._holds = 0

    def later(self, cluster: Cluster, run: Callable[[], None]) -> None:
        """Run ``run`` once the delay has passed (a transition of ``cluster``)."""
        self._tasks.append(_Task(self._clock() + self.seconds, cluster, run))

    def cancel(self, cluster: Cluster) -> None:
        """Forget the cluster's pending transitions (it is being deleted)."""
        self._tasks = [task for task in self._tasks if task.cluster is not cluster]

    @contextmanager
    def held(self) -> Iterator[None]:
        """No transition runs inside; those that came due meanwhile run at the first operation after it."""
        self._holds += 1
        try:
            yield
        finally:
            self._holds -= 1

    def run_due(self) -> None:
        """Run every transition that has come due, earliest first (a transition may schedule another)."""
        while not self._holds:
            now = self._clock()
            due = [task for task in self._tasks if task.due <= now]
            if not due:
                return
            task = min(due, key=lambda task: task.due)
            self._tasks.remove(task)
            task.run()
            self._after(task.cluster)
