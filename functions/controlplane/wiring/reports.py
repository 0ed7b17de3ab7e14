"""What the API reports about running clusters: monitoring, drift from the recorded state, cost."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.cost.service import CostService
    from controlplane.core.drift.service import DriftService
    from controlplane.core.monitoring.service import MonitoringService


@provider
def monitoring() -> MonitoringService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.hyperpod_activity import AwsHyperPodActivityGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.monitoring import KubernetesClusterReads
    from controlplane.core.monitoring.service import MonitoringService

    return MonitoringService(
        clusters=wiring.clusters(),
        eks=AwsEksGateway,
        hyperpod=AwsHyperPodGateway,
        reads=KubernetesClusterReads(factory=wiring.kubernetes_readers()),
        activity=AwsHyperPodActivityGateway,
    )


@provider
def drift() -> DriftService:
    """Reconciles as the API reads: Kubernetes through the view role."""
    from controlplane.adapters.aws.dynamo.drift_reports import DynamoDriftReportStore
    from controlplane.adapters.aws.dynamo.operations import DynamoOperationRepository
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.drift.service import DriftService
    from controlplane.core.features.catalog import addon_pins

    config = settings()
    return DriftService(
        registry=wiring.registry(),
        operations=DynamoOperationRepository(table=config.operations_table),
        reports=DynamoDriftReportStore(table=config.drift_table),
        eks=AwsEksGateway,
        hyperpod=AwsHyperPodGateway,
        iam=AwsIamGateway(),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_readers()),
        addon_pins=addon_pins(cluster_dependencies().addons),
        dependency_addons=cluster_dependencies().addons,
        clock=wiring.clock(),
        deployment=wiring.deployment(),
    )


@provider
def cost() -> CostService:
    from controlplane.adapters.aws.pricing import AwsPriceGateway
    from controlplane.adapters.aws.sagemaker import AwsHyperPodGateway
    from controlplane.core.cost.service import CostService

    return CostService(
        registry=wiring.registry(), hyperpod=AwsHyperPodGateway, prices=AwsPriceGateway(), clock=wiring.clock()
    )
