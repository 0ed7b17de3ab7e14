"""Task governance: a cluster's teams and their compute quotas, and its scheduler policy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.governance.scheduler import SchedulerPolicyService
    from controlplane.core.governance.teams import ClusterReader, TeamService


def _governed() -> ClusterReader:
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.governance.teams import ClusterReader

    return ClusterReader(clusters=wiring.clusters(), hyperpod=AwsHyperPodGateway)


@provider
def teams() -> TeamService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.governance import AwsGovernanceGateway
    from controlplane.adapters.k8s.queues import KubernetesKueueGateway
    from controlplane.core.governance.queues import TeamQueueReader
    from controlplane.core.governance.teams import TeamService

    return TeamService(
        cluster=_governed(),
        confirmations=wiring.confirmations(),
        deployment=wiring.deployment(),
        governance=AwsGovernanceGateway,
        eks=AwsEksGateway,
        queues=TeamQueueReader(AwsEksGateway, KubernetesKueueGateway(factory=wiring.kubernetes_readers())),
    )


@provider
def scheduler_policy() -> SchedulerPolicyService:
    from controlplane.adapters.aws.governance import AwsGovernanceGateway
    from controlplane.core.governance.scheduler import SchedulerPolicyService

    return SchedulerPolicyService(
        cluster=_governed(),
        confirmations=wiring.confirmations(),
        deployment=wiring.deployment(),
        governance=AwsGovernanceGateway,
    )
