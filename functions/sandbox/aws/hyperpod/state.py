"""What every part of the HyperPod simulation shares: the clusters and training plans per (account, region), the lock,
simulated time (transitions run lazily, when an operation first runs those that came due), the events HyperPod emits,
and finding a cluster. The operations are `lifecycle` (clusters) and `node_actions` (nodes); `simulation` joins them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sandbox.aws.hyperpod import events
from sandbox.aws.hyperpod.clock import Scheduler
from sandbox.aws.hyperpod.fleet import Account, Fleet, Where
from sandbox.aws.hyperpod.kubernetes import HyperPodKubernetes
from sandbox.aws.hyperpod.model import (
    Cluster,
    ComputeQuota,
    HyperPodError,
    JsonObject,
    SchedulerConfig,
    TrainingPlan,
)
from sandbox.aws.hyperpod.offerings import OfferingBook


class SimulationState:
    """The state of every simulated HyperPod cluster and training plan. Thread-safe: operations hold `lock`."""

    def __init__(
        self,
        kubernetes: HyperPodKubernetes,
        account: Account,
        seconds: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lock = threading.RLock()
        self._kubernetes = kubernetes
        self._account = account
        self._scheduler = Scheduler(seconds, clock, after=self._changed)
        self._events = events.Emitter()
        self._fleet = Fleet(kubernetes, account, self._plan)
        self._clusters: dict[Where, dict[str, Cluster]] = {}
        self._plans: dict[Where, dict[str, TrainingPlan]] = {}
        self.offerings = OfferingBook()  # a test may give it its own clock
        self._quotas: dict[Where, dict[str, ComputeQuota]] = {}
        self._scheduler_configs: dict[Where, dict[str, SchedulerConfig]] = {}

    @property
    def seconds(self) -> float:
        """How long each transition takes (a benchmark may set it; those already scheduled keep their time)."""
        return self._scheduler.seconds

    @seconds.setter
    def seconds(self, seconds: float) -> None:
        self._scheduler.seconds = seconds

    @contextmanager
    def held(self) -> Iterator[None]:
        """Simulated time stands still inside: a test reads a transient state (a node rebooting, replacing or
        pending replacement) however short `seconds` is and however slow the machine."""
        with self._scheduler.held():
            yield

    def on_event(self, listener: Callable[[JsonObject], None]) -> None:
        """`listener` receives each EventBridge event HyperPod emits (called under the lock: queue, do not act)."""
        self._events.listen(listener)

    def advance(self) -> None:
        """Run every transition that has come due (every operation does this first), and let nodes whose execution
        role now allows what they need become Ready."""
        with self.lock:
            self._scheduler.run_due()
            for clusters in self._clusters.values():
                for cluster in clusters.values():
                    self._fleet.recheck_permissions(cluster)

    def _changed(self, cluster: Cluster) -> None:
        """A transition ran: the cluster's state change event, while the cluster exists (if its status changed)."""
        if cluster.name in self._clusters.get((cluster.account, cluster.region), {}):
            self._events.status(cluster)

    def _find(self, where: Where, name_or_arn: str) -> Cluster:
        clusters = self._clusters.get(where, {})
        found = next((c for c in clusters.values() if c.arn == name_or_arn), None) or clusters.get(name_or_arn)
        if found is None:
            raise HyperPodError("ResourceNotFound", f"Cluster with name or arn {name_or_arn} not found")
        return found

    def _plan(self, where: Where, arn: str | None) -> TrainingPlan | None:
        return next((plan for plan in self._plans.get(where, {}).values() if plan.arn == arn), None)
