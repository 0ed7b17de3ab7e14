"""Inference: self-managed model servers and their warm pool, and managed endpoints. Read as the view role;
written, called through the service proxy, and their token Secrets checked, as the jobs role. Also the long polls of
every workload (training jobs included)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.endpoints.service import EndpointService
    from controlplane.core.serving.pool import ModelPoolService
    from controlplane.core.serving.service import ModelServerService
    from controlplane.core.workload_waits import WorkloadWaits


@provider
def model_servers() -> ModelServerService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.adapters.k8s.queues import KubernetesKueueGateway
    from controlplane.adapters.k8s.secrets import KubernetesSecretGateway
    from controlplane.adapters.k8s.serving import KubernetesServingGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.serving.service import ModelServerService

    return ModelServerService(
        clusters=wiring.clusters(),
        eks=AwsEksGateway,
        objects=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
        reads=KubernetesServingGateway(factory=wiring.kubernetes_readers()),
        writes=KubernetesServingGateway(factory=wiring.kubernetes_job_writers()),
        creates=KubernetesWorkloadGateway(factory=wiring.kubernetes_job_writers()),
        secrets=KubernetesSecretGateway(factory=wiring.kubernetes_job_writers()),
        confirmations=wiring.confirmations(),
        targets=wiring.team_targets(),
        queues=KubernetesKueueGateway(factory=wiring.kubernetes_readers()),
    )


@provider
def endpoints() -> EndpointService:
    """Managed inference endpoints: objects written through the jobs role, calls through SageMaker Runtime."""
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.aws.sagemaker_runtime import AwsModelEndpointGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.adapters.k8s.secrets import KubernetesSecretGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.endpoints.service import EndpointService

    return EndpointService(
        clusters=wiring.clusters(),
        eks=AwsEksGateway,
        hyperpod=AwsHyperPodGateway,
        nodes=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
        reads=KubernetesWorkloadGateway(factory=wiring.kubernetes_readers()),
        writes=KubernetesWorkloadGateway(factory=wiring.kubernetes_job_writers()),
        secrets=KubernetesSecretGateway(factory=wiring.kubernetes_job_writers()),
        runtime=AwsModelEndpointGateway,
        confirmations=wiring.confirmations(),
    )


@provider
def model_pool() -> ModelPoolService:
    """The model pool: workers read as the view role, relabelled (and binding Services created) as the jobs role."""
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.adapters.k8s.serving import KubernetesServingGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.serving.pool import ModelPoolService

    return ModelPoolService(
        clusters=wiring.clusters(),
        eks=AwsEksGateway,
        objects=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
        reads=KubernetesServingGateway(factory=wiring.kubernetes_readers()),
        writes=KubernetesServingGateway(factory=wiring.kubernetes_job_writers()),
        creates=KubernetesWorkloadGateway(factory=wiring.kubernetes_job_writers()),
    )


@provider
def workload_waits() -> WorkloadWaits:
    from controlplane.core.polling import LongPoll
    from controlplane.core.workload_waits import WorkloadWaits

    return WorkloadWaits(
        jobs=wiring.training_jobs(),
        servers=wiring.model_servers(),
        endpoints=wiring.endpoints(),
        poll=LongPoll(clock=wiring.clock(), every_seconds=settings().workload_wait_poll_seconds),
    )
