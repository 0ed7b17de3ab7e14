"""Where a team's workload goes: the team's namespace `hyperpod-ns-<team>`, with the labels HyperPod's Kueue
integration reads (the team's local queue, the priority class) [doc: HyperPod task governance; src:
aws/sagemaker-hyperpod-cli]. Jobs and model servers ask here before they create anything.

The checks, each a 4xx that says what to change: task governance is enabled on the cluster, the team has a compute
quota, the priority is a class of the cluster's scheduler policy, and the team's namespace is ready for workloads (the
`namespace_ready` check it is given: governance's, which knows what a prepared namespace holds). How Kueue admits a
workload is not this module's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from controlplane.core.features.required import require_addon_feature
from controlplane.core.naming import hyperpod_cluster_of
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.governance import GovernanceGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import (
    ClusterNotReadyError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
)
from controlplane.models.features import Feature
from controlplane.models.governance import (
    PRIORITY_LABEL,
    QUEUE_LABEL,
    TEAM_NAMESPACE_PREFIX,
    priority_label,
    team_namespace,
    team_queue,
)


class TeamNotFoundError(NotFoundError):
    code = "TeamNotFound"


class PriorityClassNotFoundError(InvalidRequestError):
    code = "PriorityClassNotFound"


class TeamNamespaceNotReadyError(ConflictError):
    code = "TeamNamespaceNotReady"


@dataclass(frozen=True)
class TeamTarget:
    """The namespace a workload is created in and the labels its object and pod template carry."""

    namespace: str
    labels: dict[str, str] = field(default_factory=dict)


def workload_namespace(namespace: str | None, home: str) -> bool:
    """Whether jobs and model servers are looked for in `namespace`: the cluster's `home` one, or a team's."""
    return namespace == home or (namespace or "").startswith(TEAM_NAMESPACE_PREFIX)


class TeamTargets:
    def __init__(
        self,
        eks: Callable[[str], EksGateway],
        hyperpod: Callable[[str], HyperPodGateway],
        governance: Callable[[str], GovernanceGateway],
        namespace_ready: Callable[[ClusterRecord, str], None],
    ) -> None:
        self._eks = eks
        self._hyperpod = hyperpod
        self._governance = governance
        self._namespace_ready = namespace_ready

    def __call__(self, record: ClusterRecord, cluster: EksCluster, team: str, priority: str | None) -> TeamTarget:
        """The team's namespace and labels, once every check passed (nothing is created here)."""
        tag = record.clusterTag
        require_addon_feature(
            self._eks(record.region),
            tag,
            cluster.name,
            Feature.TASK_GOVERNANCE,
            needs="`team` needs",
            addon="its add-on",
            then=", or drop `team` and `priority`",
        )
        found = self._hyperpod(record.region).find_cluster(hyperpod_cluster_of(tag, record.hyperPodClusterName))
        if found is None:
            raise ClusterNotReadyError(f"Cluster '{tag}' has no HyperPod cluster yet; finish stage 4 first.")
        governance = self._governance(record.region)
        teams = sorted(quota.spec.team for quota in governance.quotas(found.arn))
        if team not in teams:
            raise TeamNotFoundError(
                f"Team '{team}' has no compute quota on '{tag}' (teams: {', '.join(teams) or 'none yet'}); set "
                f"`team` to one of them, or create it with POST /clusters/{tag}/teams.",
                {"teams": teams},
            )
        labels = {QUEUE_LABEL: team_queue(team)}
        if priority is not None:
            config = governance.scheduler_config(found.arn)
            classes = [name for name, _ in config.policy.priority_classes] if config is not None else []
            if priority not in classes:
                raise PriorityClassNotFoundError(
                    f"Priority '{priority}' is not a class of '{tag}''s scheduler policy (classes: "
                    f"{', '.join(classes) or 'none: PUT /clusters/' + tag + '/scheduler-policy defines them'}); set "
                    "`priority` to one of them, or drop it.",
                    {"priorityClasses": classes},
                )
            labels[PRIORITY_LABEL] = priority_label(priority)
        self._namespace_ready(record, team)
        return TeamTarget(team_namespace(team), labels)
