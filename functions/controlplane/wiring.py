"""The composition root: the only place that constructs adapters and services. Cached per process."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from functools import cache

from controlplane.adapters.aws.account import AwsAccountGateway
from controlplane.adapters.aws.dynamo import (
    DynamoAuditLog,
    DynamoClusterRegistry,
    DynamoConfirmationStore,
    DynamoOperationRepository,
)
from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
from controlplane.adapters.aws.eks import AwsEksGateway
from controlplane.adapters.aws.fsx import AwsFileSystemGateway
from controlplane.adapters.aws.iam import AwsIamGateway
from controlplane.adapters.aws.s3 import AwsBucketGateway
from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
from controlplane.adapters.aws.stepfunctions import StepFunctionsLauncher
from controlplane.adapters.k8s import manifests
from controlplane.adapters.k8s.client import KubernetesApiGateway, KubernetesClientFactory
from controlplane.config import cluster_dependencies, feature_pins
from controlplane.core.catalog import CatalogService
from controlplane.core.clusters.import_steps import ClusterImportSteps
from controlplane.core.clusters.lifecycle import ClusterLifecycleService
from controlplane.core.clusters.registry import ClusterService
from controlplane.core.clusters.stage_requests import StageRequestService
from controlplane.core.confirmations import Confirmations
from controlplane.core.dependencies.steps import ClusterDependencyService
from controlplane.core.features.panel import FeaturePanelService
from controlplane.core.features.steps import FeatureSteps
from controlplane.core.hyperpod.group_steps import InstanceGroupSteps
from controlplane.core.hyperpod.groups import InstanceGroupService
from controlplane.core.hyperpod.nodes import NodeService
from controlplane.core.hyperpod.stage import HyperPodStageService
from controlplane.core.hyperpod_planning import HyperPodPlanner
from controlplane.core.network.eks_stack import EksStackService
from controlplane.core.operations.service import OperationService
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.storage.steps import StorageService
from controlplane.settings import settings


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


@cache
def clock() -> SystemClock:
    return SystemClock()


@cache
def operations() -> OperationService:
    config = settings()
    return OperationService(
        DynamoOperationRepository(config.operations_table),
        registry(),
        StepFunctionsLauncher(config.state_machine_arns),
        AwsAccountGateway(),
        clock(),
    )


@cache
def registry() -> DynamoClusterRegistry:
    return DynamoClusterRegistry(settings().clusters_table)


@cache
def audit_log() -> DynamoAuditLog:
    return DynamoAuditLog(settings().audit_table)


@cache
def clusters() -> ClusterService:
    return ClusterService(
        registry(), AwsEksGateway, AwsHyperPodGateway, KubernetesApiGateway(kubernetes_clients()), clock()
    )


@cache
def cluster_lifecycle() -> ClusterLifecycleService:
    return ClusterLifecycleService(
        clusters(),
        registry(),
        AwsAccountGateway(),
        operations(),
        confirmations(),
        hyperpod_planner(),
        clock(),
        AwsEksGateway,
        AwsHyperPodGateway,
    )


@cache
def stage_requests() -> StageRequestService:
    return StageRequestService(
        clusters(), operations(), AwsAccountGateway(), hyperpod_planner(), cluster_dependencies()
    )


@cache
def hyperpod_planner() -> HyperPodPlanner:
    return HyperPodPlanner(AwsAccountGateway())


@cache
def confirmations() -> Confirmations:
    return Confirmations(DynamoConfirmationStore(settings().confirmations_table), clock())


@cache
def kubernetes_clients() -> KubernetesClientFactory:
    return KubernetesClientFactory(settings().kubernetes_role_arn)


@cache
def eks_stack(region: str) -> EksStackService:
    config = settings()
    return EksStackService(
        Ec2NetworkGateway(region),
        AwsIamGateway(),
        AwsEksGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        config.kubernetes_role_arn,
        poller(),
    )


@cache
def poller() -> Poller:
    config = settings()
    return Poller(PollSettings(config.poll_seconds, config.poll_max_seconds), clock())


@cache
def cluster_dependencies_service(region: str) -> ClusterDependencyService:
    return ClusterDependencyService(
        AwsIamGateway(),
        AwsEksGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        manifests.render,
        cluster_dependencies(),
        poller(),
        settings().workload_role_boundary_arn,
    )


@cache
def hyperpod_stage(region: str) -> HyperPodStageService:
    return HyperPodStageService(
        Ec2NetworkGateway(region),
        AwsIamGateway(),
        AwsEksGateway(region),
        AwsHyperPodGateway(region),
        AwsBucketGateway(region),
        poller(),
    )


@cache
def instance_groups() -> InstanceGroupService:
    return InstanceGroupService(
        clusters(),
        operations(),
        hyperpod_planner(),
        confirmations(),
        AwsHyperPodGateway,
        AwsEksGateway,
        KubernetesApiGateway(kubernetes_clients()),
    )


@cache
def nodes() -> NodeService:
    return NodeService(
        clusters(), confirmations(), AwsHyperPodGateway, AwsEksGateway, KubernetesApiGateway(kubernetes_clients())
    )


@cache
def instance_group_steps(region: str) -> InstanceGroupSteps:
    return InstanceGroupSteps(Ec2NetworkGateway(region), AwsIamGateway(), AwsHyperPodGateway(region), poller())


@cache
def storage_service(region: str) -> StorageService:
    return StorageService(
        AwsIamGateway(),
        AwsEksGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        AwsBucketGateway(region),
        Ec2NetworkGateway(region),
        AwsFileSystemGateway(region),
        poller(),
    )


@cache
def feature_steps(region: str) -> FeatureSteps:
    return FeatureSteps(
        AwsIamGateway(),
        AwsEksGateway(region),
        AwsHyperPodGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        manifests.render,
        feature_pins(),
        poller(),
        settings().workload_role_boundary_arn,
        AwsBucketGateway(region),
        settings().autoscaling_role_boundary_arn,
    )


@cache
def cluster_import(region: str) -> ClusterImportSteps:
    pins = cluster_dependencies()
    return ClusterImportSteps(
        registry(),
        Ec2NetworkGateway(region),
        AwsEksGateway(region),
        AwsIamGateway(),
        AwsHyperPodGateway(region),
        KubernetesApiGateway(kubernetes_clients()),
        cluster_dependencies_service(region).hyperpod_dependency_objects,
        pins.addons,
        settings().kubernetes_role_arn,
        clock(),
    )


@cache
def features() -> FeaturePanelService:
    return FeaturePanelService(registry(), AwsAccountGateway(), operations(), feature_steps)


@cache
def catalog() -> CatalogService:
    return CatalogService(AwsAccountGateway())


def reset() -> None:
    """Forget every cached object (the sandbox calls this after changing the environment)."""
    for factory in (
        clock,
        operations,
        registry,
        audit_log,
        clusters,
        cluster_lifecycle,
        stage_requests,
        hyperpod_planner,
        confirmations,
        kubernetes_clients,
        eks_stack,
        poller,
        cluster_dependencies_service,
        hyperpod_stage,
        instance_groups,
        nodes,
        instance_group_steps,
        storage_service,
        feature_steps,
        features,
        cluster_import,
        catalog,
    ):
        factory.cache_clear()
    settings.cache_clear()
