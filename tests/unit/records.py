"""Registry records the unit tests start from: the cluster `demo` as the registry holds it once stages are done."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from controlplane.models.clusters import ClusterRecord, ClusterStatus
from tests.fakes.account import ACCOUNT_ID


def cluster_record(*stages: str, at: datetime, **fields: Any) -> ClusterRecord:
    """The ACTIVE cluster `demo` in us-west-2 (EKS `eks-cluster-demo`, created by alice in the fakes' account at
    `at`) with these stages done; `fields` override any field."""
    values: dict[str, Any] = {
        "clusterTag": "demo",
        "incarnation": "inc-demo",
        "region": "us-west-2",
        "status": ClusterStatus.ACTIVE,
        "eksClusterName": "eks-cluster-demo",
        "stagesDone": list(stages),
        "createdAt": at,
        "updatedAt": at,
        "createdBy": "alice",
        "accountId": ACCOUNT_ID,
    }
    return ClusterRecord(**{**values, **fields})
