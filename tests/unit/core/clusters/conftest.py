"""The clusters context wired on in-memory fakes: pre-flight, confirmations, the delete planner, the lifecycle and
stage requests (the cluster registry, EKS and HyperPod fakes are `tests/unit/core/conftest.py`'s)."""

from __future__ import annotations

import pytest

from controlplane.config import DependencyPins, ManifestPin
from controlplane.config.images import Image, ImageTable, Registry
from controlplane.core.clusters.deletion import DeletionPlanner
from controlplane.core.clusters.lifecycle import ClusterLifecycleService
from controlplane.core.clusters.stage_requests import StageRequestService
from controlplane.core.confirmations import Confirmations
from controlplane.core.hyperpod_planning import HyperPodPlanner
from controlplane.core.preflight.service import PreflightService
from controlplane.models.endpoints import EndpointList
from controlplane.models.serving import DeploymentList
from controlplane.models.training import JobList
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.network import InMemoryNetworkGateway
from tests.fakes.persistence import InMemoryConfirmationStore
from tests.fakes.quotas import InMemoryQuotaGateway

# One image from a public registry (every Region) and one from a registry with a host in two Regions only.
IMAGES = ImageTable(
    registries={
        "public": Registry(hosts={}, host="registry.example"),
        "regional": Registry(hosts={"us-west-2": "111.ecr.us-west-2", "eu-west-1": "222.ecr.eu-west-1"}),
    },
    images={"nvidia": Image("public", "nvidia", "1"), "agent": Image("regional", "agent", "1")},
)
PINS = DependencyPins(
    addons={"eks-pod-identity-agent": "v1.3.0"},
    manifests={
        "nvidia-device-plugin": ManifestPin(file="nvidia.yaml", image="nvidia"),
        "health-monitoring-agent": ManifestPin(file="agent.yaml", image="agent"),
    },
    images=IMAGES,
)


@pytest.fixture
def quotas() -> InMemoryQuotaGateway:
    return InMemoryQuotaGateway()


@pytest.fixture
def network() -> InMemoryNetworkGateway:
    return InMemoryNetworkGateway()


@pytest.fixture
def preflight(quotas, network, account, clock) -> PreflightService:
    return PreflightService(lambda region: quotas, lambda region: network, account, clock)


@pytest.fixture
def confirmations(clock) -> Confirmations:
    return Confirmations(InMemoryConfirmationStore(), clock)


class NoWork:
    """The workload services of clusters that run nothing: no job, model server or endpoint."""

    def list_jobs(self, cluster_tag: str, limit: int, token: str | None) -> JobList:
        return JobList(clusterTag=cluster_tag, jobs=[])

    def list_deployments(self, cluster_tag: str, limit: int, token: str | None) -> DeploymentList:
        return DeploymentList(clusterTag=cluster_tag, deployments=[])

    def list_endpoints(self, cluster_tag: str, limit: int, token: str | None) -> EndpointList:
        return EndpointList(clusterTag=cluster_tag, endpoints=[])


@pytest.fixture
def iam() -> InMemoryIamGateway:
    return InMemoryIamGateway()


@pytest.fixture
def deletion(iam, eks) -> DeletionPlanner:
    return DeletionPlanner(DEPLOYMENT, iam, lambda region: eks, NoWork(), NoWork(), NoWork())


@pytest.fixture
def lifecycle(
    clusters, registry, account, operations, confirmations, preflight, clock, eks, hyperpod, deletion
) -> ClusterLifecycleService:
    return ClusterLifecycleService(
        clusters,
        registry,
        account,
        operations,
        confirmations,
        HyperPodPlanner(account),
        preflight,
        clock,
        lambda region: eks,
        lambda region: hyperpod,
        PINS,
        DEPLOYMENT,
        deletion,
    )


@pytest.fixture
def stage_requests(clusters, operations, account, preflight, hyperpod, eks, kubernetes) -> StageRequestService:
    eks.add_cluster("eks-cluster-demo")
    return StageRequestService(
        clusters,
        operations,
        account,
        HyperPodPlanner(account),
        preflight,
        PINS,
        DEPLOYMENT,
        lambda region: hyperpod,
        lambda region: eks,
        kubernetes,
    )
