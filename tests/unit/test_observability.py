"""Metrics as CloudWatch embedded metric format: an operation that ends counts by kind and outcome and in total, a
stage that ends records its seconds, and a handler flushes what it emitted."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from controlplane import observability
from controlplane.models.operations import Operation, OperationKind, OperationStatus, Stage, StageStatus

START = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def fresh_metrics(monkeypatch):
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    monkeypatch.delenv("POWERTOOLS_DEV", raising=False)
    observability.metrics.cache_clear()
    yield
    observability.metrics().clear_metrics()
    observability.metrics.cache_clear()


def published(capsys) -> list[dict]:
    """Each EMF document printed: its dimensions and metric values."""
    documents = []
    for line in capsys.readouterr().out.splitlines():
        document = json.loads(line)
        [directive] = document["_aws"]["CloudWatchMetrics"]
        assert directive["Namespace"] == observability.NAMESPACE
        names = [metric["Name"] for metric in directive["Metrics"]]
        dimensions = {key: document[key] for key in directive["Dimensions"][0]}
        documents.append({"dimensions": dimensions, **{name: document[name] for name in names}})
    return documents


def operation(status: OperationStatus, stage_status: StageStatus, ended: bool) -> Operation:
    stage = Stage(
        name="network",
        status=stage_status,
        startedAt=START,
        endedAt=START + timedelta(seconds=90) if ended else None,
    )
    return Operation(
        operationId="op-0123456789abcdef",
        kind=OperationKind.CREATE_EKS_CLUSTER,
        target="demo",
        incarnation="inc-1",
        status=status,
        stages=[stage],
        actor="alice",
        createdAt=START,
        updatedAt=START,
    )


def test_an_operation_that_fails_counts_by_kind_and_outcome_and_in_total_with_its_stage_seconds(capsys):
    handler = observability.flushing_metrics(
        lambda event, context: observability.PowertoolsOperationMetrics().transition(
            operation(OperationStatus.RUNNING, StageStatus.RUNNING, ended=False),
            operation(OperationStatus.FAILED, StageStatus.FAILED, ended=True),
        )
    )

    handler({}, None)

    service = {"service": observability.SERVICE}
    assert published(capsys) == [
        {"dimensions": {**service, "Kind": "create_eks_cluster", "Stage": "network"}, "StageSeconds": [90.0]},
        {"dimensions": {**service, "Kind": "create_eks_cluster", "Outcome": "FAILED"}, "OperationsEnded": [1.0]},
        {"dimensions": {**service, "Outcome": "FAILED"}, "OperationsEnded": [1.0]},
    ]


def test_a_write_that_ends_nothing_emits_nothing(capsys):
    handler = observability.flushing_metrics(
        lambda event, context: observability.PowertoolsOperationMetrics().transition(
            operation(OperationStatus.RUNNING, StageStatus.RUNNING, ended=False),
            operation(OperationStatus.RUNNING, StageStatus.RUNNING, ended=False),
        )
    )

    handler({}, None)

    assert published(capsys) == []


def test_unhealthy_nodes_are_published_per_cluster_and_without_it(capsys):
    observability.flushing_metrics(lambda event, context: observability.record_unhealthy_nodes("demo", 3))({}, None)

    assert [(doc["dimensions"].get("Cluster"), doc["UnhealthyNodes"]) for doc in published(capsys)] == [
        ("demo", [3.0]),
        (None, [3.0]),
    ]


def test_with_metrics_disabled_nothing_is_printed_and_nothing_piles_up(capsys, monkeypatch):
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    for index in range(150):
        observability.record_unhealthy_nodes(f"c-{index}", 1)

    observability.flushing_metrics(lambda event, context: None)({}, None)

    assert capsys.readouterr().out == ""
    assert not observability.metrics().metric_set
