"""The composition root: the only place that constructs adapters and services. Cached per process.

Each factory imports its adapters and services when it is first called, so an entry point loads only what
its request or step uses (cold start): keep imports of adapters and services inside the factories.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING

from controlplane.settings import settings

if TYPE_CHECKING:
    from controlplane.adapters.aws.dynamo.audit import DynamoAuditLog
    from controlplane.adapters.aws.dynamo.registry import DynamoClusterRegistry
    from controlplane.adapters.k8s.client import KubernetesClientFactory
    from controlplane.core.catalog import CatalogService
    from controlplane.core.clusters.import_steps import ClusterImportSteps
    from controlplane.core.clusters.lifecycle import ClusterLifecycleService
    from controlplane.core.clusters.stage_requests import StageRequestService
    from controlplane.core.confirmations import Confirmations
    from controlplane.core.cost.service import CostService
    from controlplane.core.dependencies.node_agents import NodeAgentCheck
    from controlplane.core.dependencies.steps import ClusterDependencyService
    from controlplane.core.downloads.service import DownloadService
    from controlplane.core.downloads.steps import DownloadSteps
    from controlplane.core.drift.service import DriftService
    from controlplane.core.endpoints.service import EndpointService
    from controlplane.core.events.forwarding import EventForwardingSteps
    from controlplane.core.events.service import EventService
    from controlplane.core.events.waits import EventWaitSteps
    from controlplane.core.features.panel import FeaturePanelService
    from controlplane.core.features.steps import FeatureSteps
    from controlplane.core.hyperpod.group_steps import InstanceGroupSteps
    from controlplane.core.hyperpod.groups import InstanceGroupService
    from controlplane.core.hyperpod.node_steps import NodeSteps
    from controlplane.core.hyperpod.nodes import NodeService
    from controlplane.core.hyperpod.stage import HyperPodStageService
    from controlplane.core.hyperpod_planning import HyperPodPlanner
    from controlplane.core.logstream.service import LiveLogService
    from controlplane.core.monitoring.service import MonitoringService
    from controlplane.core.naming import Deployment
    from controlplane.core.network.eks_stack import EksStackService
    from controlplane.core.operations.audit import AuditTrail
    from controlplane.core.operations.service import OperationService
    from controlplane.core.polling import Poller
    from controlplane.core.ports.eks import ControlPlaneAccess
    from controlplane.core.preflight.service import PreflightService
    from controlplane.core.registry import ClusterService
    from controlplane.core.remediation.service import RemediationService
    from controlplane.core.serving.pool import ModelPoolService
    from controlplane.core.serving.service import ModelServerService
    from controlplane.core.storage.steps import StorageService
    from controlplane.core.training.mlflow import MlflowService
    from controlplane.core.training.recipes import RecipeService
    from controlplane.core.training.service import TrainingJobService


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


@cache
def clock() -> SystemClock:
    return SystemClock()


@cache
def deployment() -> Deployment:
    """This control plane: the name and Region it tags what it creates with, and the partition of its ARNs."""
    from controlplane.adapters.aws.session import partition, session
    from controlplane.core.naming import Deployment

    region = session().region_name
    if not region:
        raise RuntimeError("No AWS Region configured: set AWS_REGION.")
    return Deployment(settings().deployment_name, region, partition(region))


@cache
def operations() -> OperationService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.adapters.aws.dynamo.operations import DynamoOperationRepository
    from controlplane.adapters.aws.stepfunctions import StepFunctionsLauncher
    from controlplane.core.operations.service import OperationService
    from controlplane.observability import PowertoolsOperationMetrics

    config = settings()
    return OperationService(
        DynamoOperationRepository(config.operations_table),
        registry(),
        StepFunctionsLauncher(config.state_machine_arns),
        AwsAccountGateway(),
        clock(),
        audit_log(),
        lambda operation: clusters().record_outcome(operation),
        config.operation_wait_poll_seconds,
        PowertoolsOperationMetrics(),
    )


@cache
def registry() -> DynamoClusterRegistry:
    from controlplane.adapters.aws.dynamo.registry import DynamoClusterRegistry

    return DynamoClusterRegistry(settings().clusters_table)


@cache
def audit_log() -> DynamoAuditLog:
    from controlplane.adapters.aws.dynamo.audit import DynamoAuditLog

    return DynamoAuditLog(settings().audit_table)


@cache
def audit_trail() -> AuditTrail:
    from controlplane.core.operations.audit import AuditTrail

    return AuditTrail(audit_log())


@cache
def clusters() -> ClusterService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.registry import ClusterService

    return ClusterService(
        registry(),
        AwsEksGateway,
        AwsHyperPodGateway,
        KubernetesApiGateway(kubernetes_readers()),
        clock(),
        stage_addons=cluster_dependencies().addons,
    )


@cache
def cluster_lifecycle() -> ClusterLifecycleService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.clusters.lifecycle import ClusterLifecycleService

    return ClusterLifecycleService(
        clusters(),
        registry(),
        AwsAccountGateway(),
        operations(),
        confirmations(),
        hyperpod_planner(),
        preflight(),
        clock(),
        AwsEksGateway,
        AwsHyperPodGateway,
        cluster_dependencies(),
        deployment(),
    )


@cache
def stage_requests() -> StageRequestService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.clusters.stage_requests import StageRequestService

    return StageRequestService(
        clusters(),
        operations(),
        AwsAccountGateway(),
        hyperpod_planner(),
        preflight(),
        cluster_dependencies(),
        deployment(),
    )


@cache
def hyperpod_planner() -> HyperPodPlanner:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.core.hyperpod_planning import HyperPodPlanner

    return HyperPodPlanner(AwsAccountGateway())


@cache
def preflight() -> PreflightService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.quotas import AwsQuotaGateway
    from controlplane.core.preflight.service import PreflightService

    return PreflightService(
        AwsQuotaGateway, lambda region: Ec2NetworkGateway(region, deployment()), AwsAccountGateway(), clock()
    )


@cache
def confirmations() -> Confirmations:
    from controlplane.adapters.aws.dynamo.confirmations import DynamoConfirmationStore
    from controlplane.core.confirmations import Confirmations

    return Confirmations(DynamoConfirmationStore(settings().confirmations_table), clock())


@cache
def kubernetes_clients() -> KubernetesClientFactory:
    """Clients of the steps that change clusters: signed as the cluster-admin role."""
    from controlplane.adapters.k8s.client import KubernetesClientFactory

    return KubernetesClientFactory(settings().kubernetes_role_arn)


@cache
def kubernetes_readers() -> KubernetesClientFactory:
    """Clients of the API's live reads: signed as the view role, which no cluster lets write."""
    from controlplane.adapters.k8s.client import KubernetesClientFactory

    return KubernetesClientFactory(settings().kubernetes_view_role_arn)


@cache
def kubernetes_job_writers() -> KubernetesClientFactory:
    """Clients of the API's job writes: signed as the jobs role, which RBAC limits to job objects."""
    from controlplane.adapters.k8s.client import KubernetesClientFactory

    return KubernetesClientFactory(settings().kubernetes_jobs_role_arn)


def control_plane_access() -> ControlPlaneAccess:
    from controlplane.core.ports.eks import ControlPlaneAccess
    from controlplane.core.workload_access import JOB_WRITERS_GROUP

    config = settings()
    return ControlPlaneAccess(
        config.kubernetes_role_arn, config.kubernetes_view_role_arn, config.kubernetes_jobs_role_arn, JOB_WRITERS_GROUP
    )


@cache
def eks_stack(region: str) -> EksStackService:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.network.eks_stack import EksStackService

    config = settings()
    return EksStackService(
        Ec2NetworkGateway(region, deployment()),
        AwsIamGateway(),
        AwsEksGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        control_plane_access(),
        poller(),
        config.service_role_boundary_arn,
        deployment(),
    )


@cache
def poller() -> Poller:
    from controlplane.core.polling import Poller, PollSettings

    config = settings()
    return Poller(PollSettings(config.poll_seconds, config.poll_max_seconds), clock())


@cache
def cluster_dependencies_service(region: str) -> ClusterDependencyService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.k8s import manifests
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.dependencies.steps import ClusterDependencyService

    return ClusterDependencyService(
        AwsIamGateway(),
        AwsEksGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        manifests.render,
        cluster_dependencies(),
        poller(),
        settings().workload_role_boundary_arn,
        deployment(),
    )


@cache
def node_agents(region: str) -> NodeAgentCheck:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.dependencies.node_agents import NodeAgentCheck

    return NodeAgentCheck(
        AwsEksGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        cluster_dependencies_service(region).hyperpod_dependency_objects,
        poller(),
    )


@cache
def hyperpod_stage(region: str) -> HyperPodStageService:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.s3 import AwsBucketGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.hyperpod.stage import HyperPodStageService

    return HyperPodStageService(
        Ec2NetworkGateway(region, deployment()),
        AwsIamGateway(),
        AwsEksGateway(region),
        AwsHyperPodGateway(region),
        AwsBucketGateway(region),
        poller(),
        settings().service_role_boundary_arn,
        deployment(),
    )


@cache
def instance_groups() -> InstanceGroupService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.hyperpod.groups import InstanceGroupService

    return InstanceGroupService(
        clusters(),
        operations(),
        hyperpod_planner(),
        preflight(),
        confirmations(),
        AwsHyperPodGateway,
        AwsEksGateway,
        KubernetesApiGateway(kubernetes_readers()),
    )


@cache
def nodes() -> NodeService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.hyperpod.nodes import NodeService

    return NodeService(
        clusters(),
        operations(),
        confirmations(),
        AwsHyperPodGateway,
        AwsEksGateway,
        KubernetesApiGateway(kubernetes_readers()),
        clock(),
    )


@cache
def node_steps(region: str) -> NodeSteps:
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.hyperpod.node_steps import NodeSteps

    return NodeSteps(AwsHyperPodGateway(region), poller())


@cache
def instance_group_steps(region: str) -> InstanceGroupSteps:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.hyperpod.group_steps import InstanceGroupSteps

    return InstanceGroupSteps(
        Ec2NetworkGateway(region, deployment()), AwsIamGateway(), AwsHyperPodGateway(region), poller(), deployment()
    )


@cache
def storage_service(region: str) -> StorageService:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.fsx import AwsFileSystemGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.s3 import AwsBucketGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.storage.steps import StorageService

    return StorageService(
        AwsIamGateway(),
        AwsEksGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        AwsBucketGateway(region),
        Ec2NetworkGateway(region, deployment()),
        AwsFileSystemGateway(region),
        poller(),
        deployment(),
    )


@cache
def feature_steps(region: str) -> FeatureSteps:
    """The features' steps: Kubernetes through the cluster-admin role."""
    return _features(region, kubernetes_clients())


@cache
def feature_reads(region: str) -> FeatureSteps:
    """The features' live state as the API reads it: Kubernetes through the view role."""
    return _features(region, kubernetes_readers())


def _features(region: str, clients: KubernetesClientFactory) -> FeatureSteps:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.prometheus import AwsPrometheusGateway
    from controlplane.adapters.aws.s3 import AwsBucketGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s import manifests
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import feature_pins
    from controlplane.core.features.steps import FeatureSteps

    return FeatureSteps(
        AwsIamGateway(),
        AwsEksGateway(region),
        AwsHyperPodGateway(region),
        KubernetesApiGateway(clients),
        manifests.render,
        feature_pins(),
        poller(),
        settings().workload_role_boundary_arn,
        AwsBucketGateway(region),
        settings().autoscaling_role_boundary_arn,
        settings().service_role_boundary_arn,
        deployment(),
        registry(),
        AwsPrometheusGateway(region),
    )


@cache
def cluster_import(region: str) -> ClusterImportSteps:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.clusters.import_steps import ClusterImportSteps

    pins = cluster_dependencies()
    return ClusterImportSteps(
        registry(),
        Ec2NetworkGateway(region, deployment()),
        AwsEksGateway(region),
        AwsIamGateway(),
        AwsHyperPodGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        cluster_dependencies_service(region).hyperpod_dependency_objects,
        pins.addons,
        control_plane_access(),
        clock(),
        deployment(),
    )


@cache
def features() -> FeaturePanelService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.core.features.panel import FeaturePanelService

    return FeaturePanelService(registry(), AwsAccountGateway(), operations(), confirmations(), feature_reads)


@cache
def training_jobs() -> TrainingJobService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.training.service import TrainingJobService

    return TrainingJobService(
        clusters(),
        AwsEksGateway,
        KubernetesApiGateway(kubernetes_readers()),
        KubernetesWorkloadGateway(kubernetes_readers()),
        KubernetesWorkloadGateway(kubernetes_job_writers()),
        confirmations(),
    )


@cache
def model_servers() -> ModelServerService:
    """Model servers: read as the view role; written, and called through the service proxy, as the jobs role."""
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.adapters.k8s.serving import KubernetesServingGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.serving.service import ModelServerService

    return ModelServerService(
        clusters(),
        AwsEksGateway,
        KubernetesApiGateway(kubernetes_readers()),
        KubernetesServingGateway(kubernetes_readers()),
        KubernetesServingGateway(kubernetes_job_writers()),
        KubernetesWorkloadGateway(kubernetes_job_writers()),
        confirmations(),
    )


@cache
def endpoints() -> EndpointService:
    """Managed inference endpoints: objects written through the jobs role, calls through SageMaker Runtime."""
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.aws.sagemaker_runtime import AwsModelEndpointGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.endpoints.service import EndpointService

    return EndpointService(
        clusters(),
        AwsEksGateway,
        AwsHyperPodGateway,
        KubernetesApiGateway(kubernetes_readers()),
        KubernetesWorkloadGateway(kubernetes_readers()),
        KubernetesWorkloadGateway(kubernetes_job_writers()),
        AwsModelEndpointGateway,
        confirmations(),
    )


@cache
def model_pool() -> ModelPoolService:
    """The model pool: workers read as the view role, relabelled (and binding Services created) as the jobs role."""
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.adapters.k8s.serving import KubernetesServingGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.serving.pool import ModelPoolService

    return ModelPoolService(
        clusters(),
        AwsEksGateway,
        KubernetesApiGateway(kubernetes_readers()),
        KubernetesServingGateway(kubernetes_readers()),
        KubernetesServingGateway(kubernetes_job_writers()),
        KubernetesWorkloadGateway(kubernetes_job_writers()),
    )


@cache
def monitoring() -> MonitoringService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.monitoring import KubernetesClusterReads
    from controlplane.core.monitoring.service import MonitoringService

    return MonitoringService(
        clusters(), AwsEksGateway, AwsHyperPodGateway, KubernetesClusterReads(kubernetes_readers())
    )


@cache
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
        DynamoConnectionRepository(config.connections_table),
        ApiGatewayConnectionNotifier(config.ws_management_url),
        LambdaPusherLauncher(config.ws_function_name),
        JobLogSource(training_jobs()),
        clock(),
        config.ws_pusher_tick_seconds,
        config.ws_pusher_seconds,
    )


@cache
def recipes() -> RecipeService:
    from controlplane.adapters.aws.dynamo.recipe_values import DynamoRecipeValuesStore
    from controlplane.core.training.recipes import RecipeService, shipped_recipes

    return RecipeService(
        shipped_recipes(), training_jobs(), DynamoRecipeValuesStore(settings().recipe_values_table), mlflow()
    )


@cache
def mlflow() -> MlflowService:
    from controlplane.adapters.aws.mlflow import AwsMlflowGateway
    from controlplane.core.training.mlflow import MlflowService

    return MlflowService(clusters(), AwsMlflowGateway)


@cache
def downloads() -> DownloadService:
    """Downloads as the API starts them: a request's token written to a Secret through the jobs role."""
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.s3 import AwsBucketGateway
    from controlplane.adapters.k8s.workloads import KubernetesWorkloadGateway
    from controlplane.core.downloads.service import DownloadService

    return DownloadService(
        clusters(), operations(), AwsEksGateway, KubernetesWorkloadGateway(kubernetes_job_writers()), AwsBucketGateway
    )


@cache
def download_steps(region: str) -> DownloadSteps:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.downloads.steps import DownloadSteps

    return DownloadSteps(AwsEksGateway(region), KubernetesApiGateway(kubernetes_clients()), poller())


@cache
def drift() -> DriftService:
    """Reconciles as the API reads: Kubernetes through the view role."""
    from controlplane.adapters.aws.dynamo.drift_reports import DynamoDriftReportStore
    from controlplane.adapters.aws.dynamo.operations import DynamoOperationRepository
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import cluster_dependencies, feature_pins
    from controlplane.core.drift.service import DriftService

    config = settings()
    return DriftService(
        registry(),
        DynamoOperationRepository(config.operations_table),
        DynamoDriftReportStore(config.drift_table),
        AwsEksGateway,
        AwsHyperPodGateway,
        AwsIamGateway(),
        KubernetesApiGateway(kubernetes_readers()),
        feature_pins().addons,
        cluster_dependencies().addons,
        clock(),
        deployment(),
    )


@cache
def cost() -> CostService:
    from controlplane.adapters.aws.pricing import AwsPriceGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.cost.service import CostService

    return CostService(registry(), AwsHyperPodGateway, AwsPriceGateway(), clock())


@cache
def catalog() -> CatalogService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.catalog import CatalogService

    return CatalogService(AwsAccountGateway(), cluster_dependencies())


@cache
def events() -> EventService:
    from controlplane.adapters.aws.events import DynamoEventStore, DynamoEventWaits, StepFunctionsTaskSignal
    from controlplane.core.events.service import EventService

    config = settings()
    return EventService(
        clusters(),
        registry(),
        DynamoEventStore(config.events_table),
        DynamoEventWaits(config.event_waits_table),
        StepFunctionsTaskSignal(),
        remediation(),
        clock(),
    )


@cache
def remediation() -> RemediationService:
    from controlplane.adapters.aws.events import DynamoEventStore
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.remediation.service import RemediationService

    return RemediationService(
        clusters(), DynamoEventStore(settings().events_table), operations(), AwsHyperPodGateway, audit_log(), clock()
    )


@cache
def event_wait_steps() -> EventWaitSteps:
    from controlplane.adapters.aws.events import DynamoEventWaits, StepFunctionsTaskSignal
    from controlplane.core.events.waits import EventWaitSteps

    return EventWaitSteps(DynamoEventWaits(settings().event_waits_table), StepFunctionsTaskSignal())


@cache
def event_forwarding_steps() -> EventForwardingSteps:
    from controlplane.adapters.aws.event_forwarding import AwsEventForwarding
    from controlplane.core.events.forwarding import EventForwardingSteps

    return EventForwardingSteps(AwsEventForwarding, registry(), deployment(), settings().event_forwarding_role_arn)


def reset() -> None:
    """Forget every cached object (the sandbox calls this after changing the environment)."""
    for factory in (
        clock,
        deployment,
        operations,
        registry,
        audit_log,
        audit_trail,
        clusters,
        cluster_lifecycle,
        stage_requests,
        hyperpod_planner,
        preflight,
        confirmations,
        kubernetes_clients,
        kubernetes_readers,
        kubernetes_job_writers,
        eks_stack,
        poller,
        cluster_dependencies_service,
        node_agents,
        hyperpod_stage,
        instance_groups,
        nodes,
        instance_group_steps,
        storage_service,
        feature_steps,
        feature_reads,
        features,
        cluster_import,
        training_jobs,
        model_servers,
        model_pool,
        monitoring,
        endpoints,
        live_logs,
        recipes,
        mlflow,
        downloads,
        download_steps,
        drift,
        cost,
        catalog,
        events,
        remediation,
        event_wait_steps,
        event_forwarding_steps,
    ):
        factory.cache_clear()
    settings.cache_clear()
