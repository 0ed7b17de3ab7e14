"""The scheduled reconcile (EventBridge Scheduler): one drift check of every registered cluster.

A cluster whose check fails is reported and the others still run; the stored reports are what
GET /clusters/{clusterTag}/drift returns.
"""

from __future__ import annotations

from typing import Any

from controlplane import wiring
from controlplane.models.errors import DomainError


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    service = wiring.drift()
    checked: dict[str, int] = {}
    failed: dict[str, str] = {}
    for record in wiring.registry().list():
        try:
            report = service.check(record.clusterTag)
        except DomainError as error:
            failed[record.clusterTag] = str(error)
            continue
        checked[record.clusterTag] = len(report.findings) + len(report.stuckOperations)
    return {"checked": checked, "failed": failed}
