"""A cluster's life as a whole: the registry's live view, creation and deletion (with the delete planner), the stage
requests, import, restoring its Kubernetes access, pre-flight checks and HyperPod planning, resuming any of its
operations, and the catalog the forms offer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.catalog import CatalogService
    from controlplane.core.clusters.access import ClusterAccessService
    from controlplane.core.clusters.deletion import DeletionPlanner
    from controlplane.core.clusters.import_steps import ClusterImportSteps
    from controlplane.core.clusters.lifecycle import ClusterLifecycleService
    from controlplane.core.clusters.stage_requests import StageRequestService
    from controlplane.core.hyperpod_planning import HyperPodPlanner
    from controlplane.core.preflight.service import PreflightService
    from controlplane.core.registry import ClusterService
    from controlplane.core.resumption import ResumeService
    from controlplane.core.training_plans import TrainingPlanService


@provider
def clusters() -> ClusterService:
    from controlplane.adapters.aws.dynamo.drift_reports import DynamoDriftReportStore
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.events import DynamoEventStore
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.registry import ClusterService

    config = settings()
    return ClusterService(
        registry=wiring.registry(),
        eks=AwsEksGateway,
        hyperpod=AwsHyperPodGateway,
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
        clock=wiring.clock(),
        stage_addons=cluster_dependencies().addons,
        kept_beside=(DynamoDriftReportStore(table=config.drift_table), DynamoEventStore(table=config.events_table)),
    )


@provider
def cluster_lifecycle() -> ClusterLifecycleService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.clusters.lifecycle import ClusterLifecycleService

    return ClusterLifecycleService(
        clusters=wiring.clusters(),
        registry=wiring.registry(),
        account=AwsAccountGateway(),
        operations=wiring.operations(),
        confirmations=wiring.confirmations(),
        hyperpod_planner=wiring.hyperpod_planner(),
        preflight=wiring.preflight(),
        clock=wiring.clock(),
        eks=AwsEksGateway,
        hyperpod=AwsHyperPodGateway,
        pins=cluster_dependencies(),
        deployment=wiring.deployment(),
        deletion=wiring.deletion_planner(),
    )


@provider
def cluster_access() -> ClusterAccessService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.core.clusters.access import ClusterAccessService

    return ClusterAccessService(clusters=wiring.clusters(), operations=wiring.operations(), eks=AwsEksGateway)


@provider
def deletion_planner() -> DeletionPlanner:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.core.clusters.deletion import DeletionPlanner

    return DeletionPlanner(
        deployment=wiring.deployment(),
        iam=AwsIamGateway(),
        eks=AwsEksGateway,
        jobs=wiring.training_jobs(),
        servers=wiring.model_servers(),
        endpoints=wiring.endpoints(),
    )


@provider
def stage_requests() -> StageRequestService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.clusters.stage_requests import StageRequestService

    return StageRequestService(
        clusters=wiring.clusters(),
        operations=wiring.operations(),
        account=AwsAccountGateway(),
        hyperpod_planner=wiring.hyperpod_planner(),
        preflight=wiring.preflight(),
        pins=cluster_dependencies(),
        deployment=wiring.deployment(),
        hyperpod=AwsHyperPodGateway,
        eks=AwsEksGateway,
        namespaces=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
    )


@provider
def resumes() -> ResumeService:
    """Resuming an operation, with the checks of every service that starts operations."""
    from controlplane.core.resumption import ResumeService

    return ResumeService(
        operations=wiring.operations(),
        confirmations=wiring.confirmations(),
        services=(
            wiring.cluster_lifecycle(),
            wiring.cluster_access(),
            wiring.stage_requests(),
            wiring.instance_groups(),
            wiring.nodes(),
            wiring.health_checks(),
            wiring.features(),
            wiring.downloads(),
            wiring.team_namespaces(),
        ),
    )


@provider
def hyperpod_planner() -> HyperPodPlanner:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.core.hyperpod_planning import HyperPodPlanner

    return HyperPodPlanner(account=AwsAccountGateway())


@provider
def preflight() -> PreflightService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.quotas import AwsQuotaGateway
    from controlplane.core.preflight.service import PreflightService

    return PreflightService(
        quotas=AwsQuotaGateway,
        network=lambda region: Ec2NetworkGateway(region=region, deployment=wiring.deployment()),
        account=AwsAccountGateway(),
        clock=wiring.clock(),
    )


@provider
def cluster_import(region: str) -> ClusterImportSteps:
    from controlplane.adapters.aws.ec2 import Ec2NetworkGateway
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.clusters.import_steps import ClusterImportSteps

    return ClusterImportSteps(
        registry=wiring.registry(),
        network=Ec2NetworkGateway(region=region, deployment=wiring.deployment()),
        eks=AwsEksGateway(region=region),
        iam=AwsIamGateway(),
        hyperpod=AwsHyperPodGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_clients()),
        dependency_objects=wiring.cluster_dependencies_service(region).hyperpod_dependency_objects,
        addons=cluster_dependencies().addons,
        access=wiring.control_plane_access(),
        clock=wiring.clock(),
        deployment=wiring.deployment(),
    )


@provider
def catalog() -> CatalogService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.catalog import CatalogService

    return CatalogService(account=AwsAccountGateway(), pins=cluster_dependencies())


@provider
def training_plans() -> TrainingPlanService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.adapters.aws.training_plans import AwsTrainingPlanMarket
    from controlplane.core.training_plans import TrainingPlanService

    return TrainingPlanService(
        account=AwsAccountGateway(), market=AwsTrainingPlanMarket(), confirmations=wiring.confirmations()
    )
