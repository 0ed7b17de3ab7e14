"""Task governance: a cluster's teams and their compute quotas, their namespaces' preparation, and the cluster's
scheduler policy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.governance.namespace import TeamNamespaces, TeamNamespaceSteps
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
    from controlplane.core.governance.teams import TeamService

    return TeamService(
        cluster=_governed(),
        confirmations=wiring.confirmations(),
        deployment=wiring.deployment(),
        governance=AwsGovernanceGateway,
        eks=AwsEksGateway,
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
