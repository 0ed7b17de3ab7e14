"""Stage 1: the network and the EKS control plane, with the control plane's access entries on it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.network.eks_stack import EksStackService


@provider
def eks_stack(region: str) -> EksStackService:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.network.eks_stack import EksStackService

    return EksStackService(
        network=Ec2NetworkGateway(region=region, deployment=wiring.deployment()),
        iam=AwsIamGateway(),
        eks=AwsEksGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_clients()),
        access=wiring.control_plane_access(),
        poll=wiring.poller(),
        service_boundary_arn=settings().role_boundaries.service,
        deployment=wiring.deployment(),
    )
