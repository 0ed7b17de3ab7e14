"""The scheduled reconcile (EventBridge Scheduler): one drift check of every registered cluster.

The stored reports are what GET /clusters/{clusterTag}/drift returns; the answer (in the function's log) counts
each cluster's findings and names the clusters whose check failed.
"""

from __future__ import annotations

from typing import Any

from controlplane import wiring


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    reports, failed = wiring.drift().check_all()
    checked = {report.clusterTag: len(report.findings) + len(report.stuckOperations) for report in reports}
    return {"checked": checked, "failed": failed}
