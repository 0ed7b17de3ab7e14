"""Task governance: a cluster's teams and their compute quotas."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.governance.teams import TeamService


@provider
def teams() -> TeamService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.governance import AwsGovernanceGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.governance.teams import TeamService

    return TeamService(
        clusters=wiring.clusters(),
        confirmations=wiring.confirmations(),
        deployment=wiring.deployment(),
        hyperpod=AwsHyperPodGateway,
        governance=AwsGovernanceGateway,
        eks=AwsEksGateway,
    )
