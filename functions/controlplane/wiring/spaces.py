"""Dev spaces: the HyperPod spaces add-on's Workspaces, read through the view role and written through the jobs role."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.spaces.service import SpaceService


@provider
def spaces() -> SpaceService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.spaces.service import SpaceService

    return SpaceService(
        clusters=wiring.clusters(),
        eks=AwsEksGateway,
        nodes=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
        reads=KubernetesWorkloadGateway(factory=wiring.kubernetes_readers()),
        writes=KubernetesWorkloadGateway(factory=wiring.kubernetes_job_writers()),
        confirmations=wiring.confirmations(),
    )
