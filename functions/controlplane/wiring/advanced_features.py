"""The advanced features: the panel the API plans and starts changes with, and the features' steps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.adapters.k8s.client import KubernetesClientFactory
    from controlplane.core.features.panel import FeaturePanelService
    from controlplane.core.features.steps import FeatureSteps


@provider
def features() -> FeaturePanelService:
    from controlplane.adapters.aws.account import AwsAccountGateway
    from controlplane.core.features.panel import FeaturePanelService

    return FeaturePanelService(
        registry=wiring.registry(),
        account=AwsAccountGateway(),
        operations=wiring.operations(),
        confirmations=wiring.confirmations(),
        steps=wiring.feature_reads,
    )


@provider
def feature_steps(region: str) -> FeatureSteps:
    """The features' steps: Kubernetes through the cluster-admin role."""
    return _features(region, wiring.kubernetes_clients())


@provider
def feature_reads(region: str) -> FeatureSteps:
    """The features' live state as the API reads it: Kubernetes through the view role."""
    return _features(region, wiring.kubernetes_readers())


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
        iam=AwsIamGateway(),
        eks=AwsEksGateway(region=region),
        hyperpod=AwsHyperPodGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=clients),
        render=manifests.render,
        pins=feature_pins(),
        poll=wiring.poller(),
        boundaries=settings().role_boundaries,
        buckets=AwsBucketGateway(region=region),
        deployment=wiring.deployment(),
        registry=wiring.registry(),
        prometheus=AwsPrometheusGateway(region=region),
    )
