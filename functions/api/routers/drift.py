"""/clusters/{clusterTag}/drift: reconcile the cluster's recorded state with live state, and the last findings."""

from __future__ import annotations

from api.authorization import READ, Routes, operator
from api.routers.params import ClusterTagPath
from controlplane import wiring
from controlplane.models.drift import DriftReport

router = Routes()


@router.get(
    "/clusters/<clusterTag>/drift",
    allow=READ,
    operation_id="cluster_drift_get",
    summary="Read the last drift findings of a cluster",
    description=(
        "The last reconcile (scheduled, or run now): each managed field whose live value differs from what the "
        "control plane recorded, by field path (instanceGroups[workers].instanceCount: recorded 4, live 2; "
        "features.observability.role: recorded <name>, live missing), and the operations RUNNING past their "
        "deadline. Fields the control plane does not manage are never drift. Resume a stuck operation with "
        "operation_resume. 404 before the first check: run cluster_drift_check."
    ),
    tags=["drift"],
)
def get_drift(clusterTag: ClusterTagPath) -> DriftReport:
    return wiring.drift().last(clusterTag)


@router.post(
    "/clusters/<clusterTag>/drift",
    # A check changes nothing in the cluster (it reads and stores its report), so those who act may run it.
    allow=operator("run a drift check"),
    operation_id="cluster_drift_check",
    summary="Reconcile a cluster now and return its drift findings",
    description=(
        "Compares what the control plane recorded (instance groups, features and their IAM chains, add-on "
        "versions, storage claims, ownership tags) with live state now, stores the report (cluster_drift_get "
        "reads it) and returns it. Changes nothing in the cluster: each finding's message names the change that "
        "brings it back. Resume a stuck operation with operation_resume."
    ),
    tags=["drift"],
)
def check_drift(clusterTag: ClusterTagPath) -> DriftReport:
    return wiring.drift().check(clusterTag)
