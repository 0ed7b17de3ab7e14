"""One-shot step failures for trying resume: `POST /sandbox/faults {"step": ..., "times": n, "after": m}`.

`after` lets the step succeed m more times first (a poll loop's later round fails, after its work began).
"""

from __future__ import annotations

import threading


def step_key(name: str) -> str:
    """ "Create EKS Cluster" and "create_eks_cluster" name the same step."""
    return name.strip().lower().replace(" ", "_").replace("-", "_")


class FaultBook:
    def __init__(self) -> None:
        self._pending: dict[str, int] = {}
        self._passes: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, step: str, times: int, after: int = 0) -> None:
        with self._lock:
            self._pending[step_key(step)] = self._pending.get(step_key(step), 0) + times
            self._passes[step_key(step)] = after

    def take(self, step: str) -> bool:
        """Consume one pending fault for `step`; True if the step must fail now."""
        with self._lock:
            if self._passes.get(step_key(step), 0) > 0:
                self._passes[step_key(step)] -= 1
                return False
            left = self._pending.get(step_key(step), 0)
            if left <= 0:
                return False
            self._pending[step_key(step)] = left - 1
            return True

    def pending(self) -> dict[str, int]:
        with self._lock:
            return {step: count for step, count in self._pending.items() if count > 0}

    def clear(self) -> None:
        with self._lock:
            self._pending.clear()
            self._passes.clear()
