"""One-shot step failures for trying resume: `POST /sandbox/faults {"step": ..., "times": n, "after": m}`.

`after` lets the step succeed m more times first (a poll loop's later round fails, after its work began).
`clusterTag` keeps the fault for that cluster's workflows: with many operations at once, each fails where it was told
(a fault without it is taken by whichever workflow runs the step first).
"""

from __future__ import annotations

import threading


def step_key(name: str) -> str:
    """ "Create EKS Cluster" and "create_eks_cluster" name the same step."""
    return name.strip().lower().replace(" ", "_").replace("-", "_")


# A pending fault's place in the book: its step's key, and the cluster it is kept for (None: any cluster).
Place = tuple[str, str | None]


class FaultBook:
    def __init__(self) -> None:
        self._pending: dict[Place, int] = {}
        self._passes: dict[Place, int] = {}
        self._lock = threading.Lock()

    def add(self, step: str, times: int, after: int = 0, cluster_tag: str | None = None) -> None:
        place = (step_key(step), cluster_tag)
        with self._lock:
            self._pending[place] = self._pending.get(place, 0) + times
            self._passes[place] = after

    def take(self, step: str, cluster_tag: str | None = None) -> bool:
        """Consume one pending fault for `step` run for `cluster_tag` (one kept for that cluster first, then one for
        any); True if the step must fail now."""
        with self._lock:
            return any(
                self._take((step_key(step), place_tag))
                for place_tag in dict.fromkeys((cluster_tag, None))
                if (step_key(step), place_tag) in self._pending
            )

    def _take(self, place: Place) -> bool:
        if self._passes.get(place, 0) > 0:
            self._passes[place] -= 1
            return False
        left = self._pending.get(place, 0)
        if left <= 0:
            return False
        self._pending[place] = left - 1
        return True

    def pending(self) -> dict[str, int]:
        """Pending faults by step (`<step> for <tag>` when kept for one cluster)."""
        with self._lock:
            return {
                step if tag is None else f"{step} for {tag}": count
                for (step, tag), count in self._pending.items()
                if count > 0
            }

    def clear(self) -> None:
        with self._lock:
            self._pending.clear()
            self._passes.clear()
