"""Restoring a finished or imported cluster's Kubernetes access: its workflow runs stage 1's and import's own Ensure
Access Entry (the control plane's access entries with their groups and policies, then the workload RBAC) and Verify
Kubernetes API again, for a cluster whose create or import operation SUCCEEDED and so cannot be resumed — one made
before an entry named its group, or whose entries or RBAC were changed since."""

from __future__ import annotations

from collections.abc import Callable

from controlplane.core.auth import Actor
from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.naming import JOB_WRITERS_GROUP, VIEWERS_GROUP
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.eks import EksGateway
from controlplane.core.registry import ClusterService
from controlplane.core.workload_access import JOB_WRITER_ROLE, SERVING_WRITER_ROLE, VIEW_READER_ROLE
from controlplane.models.clusters import ClusterRecord, ClusterStatus, Plan, PlannedAction
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.operations import Operation, OperationKind


class ClusterAccessService:
    def __init__(
        self, clusters: ClusterService, operations: OperationService, eks: Callable[[str], EksGateway]
    ) -> None:
        self._clusters = clusters
        self._operations = operations
        self._eks = eks

    def plan_restore(self, cluster_tag: str) -> Plan:
        """What restoring would ensure (each step changes only what differs), after the checks; no side effect."""
        self._restorable(cluster_tag)
        return Plan(
            actions=[
                PlannedAction(
                    action="update",
                    resource="EKS access entries",
                    name="the control plane's access, view and jobs roles",
                    detail=f"created if missing; groups {VIEWERS_GROUP} and {JOB_WRITERS_GROUP} and access policies "
                    "added where missing",
                ),
                PlannedAction(
                    action="update",
                    resource="Kubernetes RBAC",
                    name=", ".join((VIEW_READER_ROLE, JOB_WRITER_ROLE, SERVING_WRITER_ROLE)),
                    detail="ClusterRoles and their bindings applied server-side",
                ),
            ]
        )

    def restore(self, cluster_tag: str, actor: Actor) -> Operation:
        return self._operations.start(self._restorable(cluster_tag), actor, OperationKind.RESTORE_CLUSTER_ACCESS)

    resumes = frozenset({OperationKind.RESTORE_CLUSTER_ACCESS})

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """Before a resume: the cluster is still ACTIVE with a reachable EKS control plane."""
        self._restorable(record.clusterTag)
        return Plan(actions=[])

    def _restorable(self, cluster_tag: str) -> ClusterRecord:
        """An ACTIVE cluster (created or imported) whose EKS control plane serves its API."""
        record = self._clusters.get(cluster_tag)
        if record.status != ClusterStatus.ACTIVE:
            raise ClusterNotReadyError(
                f"Cluster '{cluster_tag}' is {record.status}, not ACTIVE: its create or import operation has not "
                "finished. Resume that operation instead (POST /operations/{operationId}/resume); its Ensure Access "
                "Entry step gives the same access.",
                {"status": record.status},
            )
        reachable_control_plane(self._eks(record.region), record.eksClusterName, cluster_tag, active=True)
        return record
