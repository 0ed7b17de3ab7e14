"""What each team's queue holds now, as Kueue keeps it in the cluster: what its admitted jobs use per instance type
(its ClusterQueue's usage) and its jobs that wait, with Kueue's reason (its Workloads not admitted). The teams view
(`teams.py`) shows it beside each team's quota; when the cluster's RBAC refuses the reads, or its Kubernetes API is not
reachable, every team's queue state is unknown and says why."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.queues import ClusterQueueUse, KueueGateway, KueueReadRefusedError, QueuedWorkload
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.governance import QueuedWork, QueueResourceUse, team_cluster_queue, team_namespace


@dataclass
class TeamQueue:
    in_use: list[QueueResourceUse] = field(default_factory=list)
    admitted: int = 0
    queued: list[QueuedWork] = field(default_factory=list)
    # Why the rest was not read (None: read).
    unknown: str | None = None


class TeamQueueReader:
    def __init__(self, eks: Callable[[str], EksGateway], kueue: KueueGateway) -> None:
        self._eks = eks
        self._kueue = kueue

    def __call__(self, record: ClusterRecord, teams: list[str]) -> dict[str, TeamQueue]:
        """Each team's queue state (an empty one where Kueue has nothing for it, an unknown one where it was not
        read)."""
        try:
            queues, workloads = self._read(record)
        except KueueReadRefusedError as refused:
            why = (
                f"the cluster's RBAC refuses the control plane's view role Kueue's {refused} (403); "
                f"{KueueReadRefusedError.REMEDY}"
            )
            return {team: TeamQueue(unknown=why) for team in teams}
        except ClusterNotReadyError as unreachable:
            return {team: TeamQueue(unknown=unreachable.message) for team in teams}
        by_queue = {queue.name: queue for queue in queues}
        by_namespace = {team_namespace(team): team for team in teams}
        found = {team: TeamQueue() for team in teams}
        for team, state in found.items():
            queue = by_queue.get(team_cluster_queue(team))
            if queue is None:
                continue
            state.admitted = queue.admitted
            state.in_use = [
                QueueResourceUse(instanceType=use.flavor, resource=use.resource, inUse=use.total, borrowed=use.borrowed)
                for use in queue.usage
                if use.total not in ("0", "0Gi")
            ]
        for workload in workloads:
            owner = by_namespace.get(workload.namespace)
            if owner is None or workload.admitted or workload.finished:
                continue
            found[owner].queued.append(
                QueuedWork(
                    name=workload.job_name or workload.name,
                    kind=workload.job_kind,
                    priorityClass=workload.priority_class,
                    reason=workload.reason,
                    message=workload.message,
                    since=workload.created_at,
                )
            )
        return found

    def _read(self, record: ClusterRecord) -> tuple[list[ClusterQueueUse], list[QueuedWorkload]]:
        cluster = reachable_control_plane(self._eks(record.region), record.eksClusterName, record.clusterTag)
        return self._kueue.cluster_queues(cluster, record.region), self._kueue.workloads(cluster, record.region)
