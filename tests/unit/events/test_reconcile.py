"""The scheduled reconcile checks every registered cluster through the drift service and says, per cluster, how
many findings it has, or why its check failed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controlplane import wiring
from controlplane.models.drift import DriftFinding, DriftReport
from events.reconcile import lambda_handler

AT = datetime(2026, 12, 2, tzinfo=UTC)
FINDING = DriftFinding(path="instanceGroups[workers].instanceCount", recorded=4, live=2, message="resized")


class CheckedAll:
    def check_all(self) -> tuple[list[DriftReport], dict[str, str]]:
        return (
            [
                DriftReport(clusterTag="alpha", checkedAt=AT, inSync=True),
                DriftReport(clusterTag="gamma", checkedAt=AT, inSync=False, findings=[FINDING]),
            ],
            {"beta": "EKS cluster of beta is not ACTIVE."},
        )


def test_schedule_reports_every_cluster_checked_and_every_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wiring, "drift", CheckedAll)

    result = lambda_handler({"source": "aws.scheduler"}, None)

    assert result == {"checked": {"alpha": 0, "gamma": 1}, "failed": {"beta": "EKS cluster of beta is not ACTIVE."}}
