"""Stage 5: the cluster's storage (S3 and FSx claims)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.storage.steps import StorageService


@provider
def storage_service(region: str) -> StorageService:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.fsx import AwsFileSystemGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.s3 import AwsBucketGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.storage.steps import StorageService

    return StorageService(
        iam=AwsIamGateway(),
        eks=AwsEksGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_clients()),
        buckets=AwsBucketGateway(region=region),
        network=Ec2NetworkGateway(region=region, deployment=wiring.deployment()),
        file_systems=AwsFileSystemGateway(region=region),
        poll=wiring.poller(),
        deployment=wiring.deployment(),
    )
