"""Task governance: a cluster's teams and their compute quotas, their namespaces' preparation, its scheduler
policy, and where a team's work goes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.governance.namespace import TeamNamespaces, TeamNamespaceSteps
    from controlplane.core.governance.scheduler import SchedulerPolicyService
    from controlplane.core.governance.teams import ClusterReader, TeamService
    from controlplane.core.team_targets import TeamTargets


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
        namespaces=wiring.team_namespaces(),
    )


@provider
def team_namespaces() -> TeamNamespaces:
    """Team namespaces as the API reads them (the view role) and starts their operations; `require_ready` is what a
    workload's submission into a team's namespace calls."""
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.governance.namespace import TeamNamespaces

    return TeamNamespaces(
        operations=wiring.operations(),
        eks=AwsEksGateway,
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
        deployment=wiring.deployment(),
    )


@provider
def team_namespace_steps(region: str) -> TeamNamespaceSteps:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.governance.namespace import TeamNamespaceSteps

    return TeamNamespaceSteps(
        eks=AwsEksGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_clients()),
        iam=AwsIamGateway(),
        poller=wiring.poller(),
        deployment=wiring.deployment(),
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


@provider
def team_targets() -> TeamTargets:
    """The checks of a team's jobs and model servers: AWS reads, and the team namespace's readiness."""
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.governance import AwsGovernanceGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.team_targets import TeamTargets

    return TeamTargets(
        eks=AwsEksGateway,
        hyperpod=AwsHyperPodGateway,
        governance=AwsGovernanceGateway,
        namespace_ready=wiring.team_namespaces().require_ready,
    )
