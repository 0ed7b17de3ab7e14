"""The scheduled reconcile checks every registered cluster; one cluster's failure does not stop the others."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controlplane import wiring
from controlplane.models.drift import DriftReport
from controlplane.models.errors import ClusterNotReadyError
from events.reconcile import lambda_handler
from tests.fakes.persistence import InMemoryClusterRegistry
from tests.unit.records import cluster_record

AT = datetime(2026, 12, 2, tzinfo=UTC)


class RecordingDrift:
    def __init__(self, failing: set[str]) -> None:
        self.checked: list[str] = []
        self._failing = failing

    def check(self, cluster_tag: str) -> DriftReport:
        self.checked.append(cluster_tag)
        if cluster_tag in self._failing:
            raise ClusterNotReadyError(f"EKS cluster of {cluster_tag} is not ACTIVE.")
        return DriftReport(clusterTag=cluster_tag, checkedAt=AT, inSync=True)


def test_schedule_reconciles_every_registered_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = InMemoryClusterRegistry(
        *(cluster_record("eks", at=AT, clusterTag=tag) for tag in ("alpha", "beta", "gamma"))
    )
    drift = RecordingDrift(failing={"beta"})
    monkeypatch.setattr(wiring, "registry", lambda: registry)
    monkeypatch.setattr(wiring, "drift", lambda: drift)

    result = lambda_handler({"source": "aws.scheduler"}, None)

    assert sorted(drift.checked) == ["alpha", "beta", "gamma"]
    assert result == {"checked": {"alpha": 0, "gamma": 0}, "failed": {"beta": "EKS cluster of beta is not ACTIVE."}}
