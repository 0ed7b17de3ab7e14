"""Stage 3: the cluster's dependencies (OIDC, add-ons, HyperPod's Helm objects) and the check of its nodes' agents."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane import wiring
from controlplane.settings import settings
from controlplane.wiring.provider import provider

if TYPE_CHECKING:
    from controlplane.core.dependencies.node_agents import NodeAgentCheck
    from controlplane.core.dependencies.steps import ClusterDependencyService


@provider
def cluster_dependencies_service(region: str) -> ClusterDependencyService:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.aws.iam import AwsIamGateway
    from controlplane.adapters.k8s import manifests
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.config import cluster_dependencies
    from controlplane.core.dependencies.steps import ClusterDependencyService

    return ClusterDependencyService(
        iam=AwsIamGateway(),
        eks=AwsEksGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_clients()),
        render=manifests.render,
        pins=cluster_dependencies(),
        poll=wiring.poller(),
        workload_boundary_arn=settings().role_boundaries.workload,
        deployment=wiring.deployment(),
    )


@provider
def node_agents(region: str) -> NodeAgentCheck:
    from controlplane.adapters.aws.eks import AwsEksGateway
    from controlplane.adapters.k8s.client import KubernetesApiGateway
    from controlplane.core.dependencies.node_agents import NodeAgentCheck

    return NodeAgentCheck(
        eks=AwsEksGateway(region=region),
        kubernetes=KubernetesApiGateway(factory=wiring.kubernetes_clients()),
        dependency_objects=wiring.cluster_dependencies_service(region).hyperpod_dependency_objects,
        poll=wiring.poller(),
    )
