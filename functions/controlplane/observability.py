"""Powertools logger and metrics, each created on first use; the names of the metrics the alarms and the dashboard
read (`infra/monitoring.py`), defined here only.

Metrics go out as CloudWatch embedded metric format on stdout. Every metric carries Powertools' `service`
dimension; the operation and node metrics are emitted twice, per kind (or cluster) and in total, so an alarm reads
one series whatever the kinds and clusters. A handler that emits metrics is wrapped in `flushing_metrics`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from functools import cache, wraps
from typing import TYPE_CHECKING, Any, TypeVar

from aws_lambda_powertools import Logger

if TYPE_CHECKING:
    from aws_lambda_powertools import Metrics

    from controlplane.models.operations import Operation

NAMESPACE = "InstantStart"
SERVICE = "instantstart"
# Count of operations that ended, by Kind and Outcome (SUCCEEDED | FAILED | CANCELLED), and by Outcome alone.
OPERATIONS_ENDED = "OperationsEnded"
# Seconds from a stage's start to its end, by Kind and Stage.
STAGE_SECONDS = "StageSeconds"
# Nodes not Ready or whose HyperPod health label says other than Schedulable, as a read of a cluster found them: by
# Cluster, and without it (whose Maximum is the worst cluster's).
UNHEALTHY_NODES = "UnhealthyNodes"

Handler = TypeVar("Handler", bound=Callable[..., Any])
# One Lambda invocation runs on one thread; the sandbox serves several requests of one process at once.
_emitting = threading.Lock()


@cache
def logger() -> Logger:
    return Logger(service=SERVICE)


@cache
def metrics() -> Metrics:
    from aws_lambda_powertools import Metrics

    return Metrics(namespace=NAMESPACE, service=SERVICE)


def emit(name: str, value: float, unit: str, dimensions: Mapping[str, str]) -> None:
    """Add one metric value under these dimensions. The metrics of one flush share their dimensions, so metrics
    waiting under other dimensions are flushed first."""
    from aws_lambda_powertools.metrics import MetricUnit

    current = metrics()
    with _emitting:
        waiting = {key: value for key, value in current.dimension_set.items() if key != "service"}
        if current.metric_set and waiting != dict(dimensions):
            _flush(current)
        current.dimension_set.clear()
        for key, value_of in dimensions.items():
            current.add_dimension(name=key, value=value_of)
        current.add_metric(name=name, unit=MetricUnit(unit), value=value)


def _flush(current: Metrics) -> None:
    """Publish what waits (unless POWERTOOLS_METRICS_DISABLED) and forget it either way."""
    current.flush_metrics()
    current.clear_metrics()


def flushing_metrics(handler: Handler) -> Handler:
    """Wrap a Lambda handler so that the metrics it emitted are flushed when it returns or raises (none are
    created by a handler that emitted none)."""

    @wraps(handler)
    def wrapped(event: Any, context: Any) -> Any:
        try:
            return handler(event, context)
        finally:
            if metrics.cache_info().currsize:
                with _emitting:
                    if metrics().metric_set:
                        _flush(metrics())

    return wrapped  # type: ignore[return-value]


class PowertoolsOperationMetrics:
    """Operation transitions as metrics: an operation that ended (by kind and outcome) and each stage that ended
    with the write (its duration)."""

    def transition(self, before: Operation, after: Operation) -> None:
        kind = after.kind.value
        previous = {stage.name: stage for stage in before.stages}
        for stage in after.stages:
            was = previous.get(stage.name)
            if stage.endedAt and stage.startedAt and (was is None or was.endedAt is None):
                seconds = (stage.endedAt - stage.startedAt).total_seconds()
                emit(STAGE_SECONDS, seconds, "Seconds", {"Kind": kind, "Stage": stage.name})
        if after.status.terminal and not before.status.terminal:
            outcome = after.status.value
            emit(OPERATIONS_ENDED, 1, "Count", {"Kind": kind, "Outcome": outcome})
            emit(OPERATIONS_ENDED, 1, "Count", {"Outcome": outcome})


def record_unhealthy_nodes(cluster_tag: str, count: int) -> None:
    """The number of unhealthy nodes a read of the cluster found, per cluster and in total."""
    emit(UNHEALTHY_NODES, count, "Count", {"Cluster": cluster_tag})
    emit(UNHEALTHY_NODES, count, "Count", {})
