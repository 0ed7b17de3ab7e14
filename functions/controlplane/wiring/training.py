"""Training: jobs and their live logs, recipes and MLflow, and the downloads that fill a cluster's storage."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.downloads.service import DownloadService
    from controlplane.core.downloads.steps import DownloadSteps
    from controlplane.core.logstream.service import LiveLogService
    from controlplane.core.training.mlflow import MlflowService
    from controlplane.core.training.recipes import RecipeService
    from controlplane.core.training.service import TrainingJobService


@provider
def training_jobs() -> TrainingJobService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.adapters.k8s.queues import KubernetesKueueGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.training.service import TrainingJobService

    return TrainingJobService(
        clusters=wiring.clusters(),
        eks=AwsEksGateway,
        nodes=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
        reads=KubernetesWorkloadGateway(factory=wiring.kubernetes_readers()),
        writes=KubernetesWorkloadGateway(factory=wiring.kubernetes_job_writers()),
        confirmations=wiring.confirmations(),
        targets=wiring.team_targets(),
        queues=KubernetesKueueGateway(factory=wiring.kubernetes_readers()),
    )


@provider
def live_logs() -> LiveLogService:
    from controlplane.adapters.aws.websocket import (
        ApiGatewayConnectionNotifier,
        DynamoConnectionRepository,
        LambdaPusherLauncher,
    )
    from controlplane.core.logstream.service import LiveLogService
    from controlplane.core.logstream.source import JobLogSource

    config = settings()
    return LiveLogService(
        connections=DynamoConnectionRepository(table=config.connections_table),
        notifier=ApiGatewayConnectionNotifier(endpoint_url=config.ws_management_url),
        launcher=LambdaPusherLauncher(function_name=config.ws_function_name),
        source=JobLogSource(jobs=wiring.training_jobs()),
        clock=wiring.clock(),
        tick_seconds=config.ws_pusher_tick_seconds,
        run_seconds=config.ws_pusher_seconds,
    )


@provider
def recipes() -> RecipeService:
    from controlplane.adapters.aws.dynamo.recipe_values import DynamoRecipeValuesStore
    from controlplane.core.training.recipes import RecipeService, shipped_recipes

    return RecipeService(
        recipes=shipped_recipes(),
        jobs=wiring.training_jobs(),
        last_values=DynamoRecipeValuesStore(table=settings().recipe_values_table),
        mlflow=wiring.mlflow(),
    )


@provider
def mlflow() -> MlflowService:
    from controlplane.adapters.aws.mlflow import AwsMlflowGateway
    from controlplane.core.training.mlflow import MlflowService

    return MlflowService(clusters=wiring.clusters(), gateway=AwsMlflowGateway)


@provider
def downloads() -> DownloadService:
    """Downloads as the API starts them: a request's token written to a Secret, or the Secret it names checked,
    through the jobs role."""
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.s3 import AwsBucketGateway
    from controlplane.adapters.k8s.secrets import KubernetesSecretGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.downloads.service import DownloadService

    return DownloadService(
        clusters=wiring.clusters(),
        operations=wiring.operations(),
        eks=AwsEksGateway,
        secrets_writer=KubernetesWorkloadGateway(factory=wiring.kubernetes_job_writers()),
        secrets=KubernetesSecretGateway(factory=wiring.kubernetes_job_writers()),
        buckets=AwsBucketGateway,
    )


@provider
def download_steps(region: str) -> DownloadSteps:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.downloads.steps import DownloadSteps

    return DownloadSteps(
        eks=AwsEksGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_clients()),
        poller=wiring.poller(),
    )
