"""Stage 4 and after: the HyperPod cluster, its instance groups and nodes, as the API plans them and as the steps
change them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.hyperpod.activity import HyperPodActivityService
    from controlplane.core.hyperpod.group_steps import InstanceGroupSteps
    from controlplane.core.hyperpod.groups import InstanceGroupService
    from controlplane.core.hyperpod.health_check_steps import HealthCheckSteps
    from controlplane.core.hyperpod.health_checks import HealthCheckService
    from controlplane.core.hyperpod.node_steps import NodeSteps
    from controlplane.core.hyperpod.nodes import NodeService
    from controlplane.core.hyperpod.stage import HyperPodStageService


@provider
def hyperpod_stage(region: str) -> HyperPodStageService:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.s3 import AwsBucketGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.hyperpod.stage import HyperPodStageService

    return HyperPodStageService(
        network=Ec2NetworkGateway(region=region, deployment=wiring.deployment()),
        iam=AwsIamGateway(),
        eks=AwsEksGateway(region=region),
        hyperpod=AwsHyperPodGateway(region=region),
        buckets=AwsBucketGateway(region=region),
        poll=wiring.poller(),
        service_boundary_arn=settings().role_boundaries.service,
        deployment=wiring.deployment(),
    )


@provider
def instance_groups() -> InstanceGroupService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.hyperpod.groups import InstanceGroupService

    return InstanceGroupService(
        clusters=wiring.clusters(),
        operations=wiring.operations(),
        planner=wiring.hyperpod_planner(),
        preflight=wiring.preflight(),
        confirmations=wiring.confirmations(),
        hyperpod=AwsHyperPodGateway,
        eks=AwsEksGateway,
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
    )


@provider
def nodes() -> NodeService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.hyperpod.nodes import NodeService

    return NodeService(
        clusters=wiring.clusters(),
        operations=wiring.operations(),
        confirmations=wiring.confirmations(),
        hyperpod=AwsHyperPodGateway,
        eks=AwsEksGateway,
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
        clock=wiring.clock(),
    )


@provider
def node_steps(region: str) -> NodeSteps:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.hyperpod.node_steps import NodeSteps

    return NodeSteps(
        hyperpod=AwsHyperPodGateway(region=region),
        poll=wiring.poller(),
        eks=AwsEksGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_clients()),
    )


@provider
def hyperpod_activity() -> HyperPodActivityService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.hyperpod_activity import AwsHyperPodActivityGateway
    from controlplane.adapters.k8s.monitoring import KubernetesClusterReads
    from controlplane.core.hyperpod.activity import HyperPodActivityService

    return HyperPodActivityService(
        clusters=wiring.clusters(),
        activity=AwsHyperPodActivityGateway,
        eks=AwsEksGateway,
        reads=KubernetesClusterReads(factory=wiring.kubernetes_readers()),
    )


@provider
def health_checks() -> HealthCheckService:
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.hyperpod.health_checks import HealthCheckService

    return HealthCheckService(
        clusters=wiring.clusters(),
        operations=wiring.operations(),
        confirmations=wiring.confirmations(),
        hyperpod=AwsHyperPodGateway,
        clock=wiring.clock(),
    )


@provider
def health_check_steps(region: str) -> HealthCheckSteps:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.hyperpod.health_check_steps import HealthCheckSteps

    return HealthCheckSteps(
        hyperpod=AwsHyperPodGateway(region=region),
        poll=wiring.poller(),
        eks=AwsEksGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_clients()),
    )


@provider
def instance_group_steps(region: str) -> InstanceGroupSteps:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.hyperpod.group_steps import InstanceGroupSteps

    return InstanceGroupSteps(
        network=Ec2NetworkGateway(region=region, deployment=wiring.deployment()),
        iam=AwsIamGateway(),
        hyperpod=AwsHyperPodGateway(region=region),
        poll=wiring.poller(),
        deployment=wiring.deployment(),
    )
