"""The HyperPod context's services wired from the shared in-memory fakes (`tests/fakes`), as `controlplane.wiring`
does, for its unit tests. Fakes themselves belong in `tests/fakes`, not here."""

from __future__ import annotations

from dataclasses import dataclass, field

from controlplane.core.confirmations import Confirmations
from controlplane.core.hyperpod.group_steps import InstanceGroupSteps
from controlplane.core.hyperpod.groups import InstanceGroupService
from controlplane.core.hyperpod.health_check_steps import HealthCheckSteps
from controlplane.core.hyperpod.health_checks import HealthCheckService
from controlplane.core.hyperpod.node_steps import NodeSteps
from controlplane.core.hyperpod.nodes import NodeService
from controlplane.core.hyperpod.stage import HyperPodStageService
from controlplane.core.hyperpod_planning import HyperPodPlanner
from controlplane.core.operations.service import OperationService
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.preflight.service import PreflightService
from controlplane.core.registry import ClusterService
from tests.fakes.account import ACCOUNT_ID, InMemoryAccountGateway
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.hyperpod import InMemoryHyperPodGateway
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.kubernetes import ClusterApi, InMemoryKubernetesGateway
from tests.fakes.network import InMemoryNetworkGateway
from tests.fakes.persistence import (
    FakeClock,
    InMemoryAuditLog,
    InMemoryClusterRegistry,
    InMemoryConfirmationStore,
    InMemoryOperationRepository,
    RecordingLauncher,
)
from tests.fakes.quotas import InMemoryQuotaGateway
from tests.fakes.storage import InMemoryBucketGateway
from tests.unit.records import cluster_record

REGION = "us-west-2"
ACCOUNT = ACCOUNT_ID
TAG = "demo"
EKS_NAME = "eks-cluster-demo"
SERVICE_BOUNDARY = f"arn:aws:iam::{ACCOUNT}:policy/service-boundary"
POLL = PollSettings(first_wait_seconds=0, max_wait_seconds=0)


@dataclass
class World:
    """Every fake, and the HyperPod context's services wired from them as `controlplane.wiring` does."""

    hyperpod: InMemoryHyperPodGateway = field(default_factory=InMemoryHyperPodGateway)
    network: InMemoryNetworkGateway = field(default_factory=InMemoryNetworkGateway)
    iam: InMemoryIamGateway = field(default_factory=InMemoryIamGateway)
    eks: InMemoryEksGateway = field(default_factory=InMemoryEksGateway)
    buckets: InMemoryBucketGateway = field(default_factory=InMemoryBucketGateway)
    kubernetes: InMemoryKubernetesGateway = field(default_factory=InMemoryKubernetesGateway)
    registry: InMemoryClusterRegistry = field(default_factory=InMemoryClusterRegistry)
    launcher: RecordingLauncher = field(default_factory=RecordingLauncher)
    account: InMemoryAccountGateway = field(default_factory=InMemoryAccountGateway)
    clock: FakeClock = field(default_factory=FakeClock)
    quotas: InMemoryQuotaGateway = field(default_factory=InMemoryQuotaGateway)

    def __post_init__(self) -> None:
        self.confirmations = Confirmations(InMemoryConfirmationStore(), self.clock)
        self.clusters = ClusterService(
            self.registry, lambda region: self.eks, lambda region: self.hyperpod, self.kubernetes, self.clock
        )
        self.operations = OperationService(
            InMemoryOperationRepository(),
            self.registry,
            self.launcher,
            self.account,
            self.clock,
            InMemoryAuditLog(),
            self.clusters.record_outcome,
        )

    def register(self, stages: tuple[str, ...] = ("eks", "dependencies", "hyperpod"), **fields: object) -> None:
        """Register the ACTIVE cluster `demo` with these stages done; `fields` override any field."""
        self.registry.create(cluster_record(*stages, at=self.clock.now(), **fields))

    def kubernetes_api(self) -> ClusterApi:
        """The EKS cluster's Kubernetes API: its nodes and the pods running on them."""
        return self.kubernetes.api(EKS_NAME)

    def instance_groups(self) -> InstanceGroupService:
        return InstanceGroupService(
            self.clusters,
            self.operations,
            HyperPodPlanner(self.account),
            self.preflight(),
            self.confirmations,
            lambda region: self.hyperpod,
            lambda region: self.eks,
            self.kubernetes,
        )

    def preflight(self) -> PreflightService:
        return PreflightService(lambda region: self.quotas, lambda region: self.network, self.account, self.clock)

    def nodes(self) -> NodeService:
        return NodeService(
            self.clusters,
            self.operations,
            self.confirmations,
            lambda region: self.hyperpod,
            lambda region: self.eks,
            self.kubernetes,
            self.clock,
        )

    def health_checks(self) -> HealthCheckService:
        return HealthCheckService(
            self.clusters, self.operations, self.confirmations, lambda region: self.hyperpod, self.clock
        )

    def health_check_steps(self) -> HealthCheckSteps:
        return HealthCheckSteps(self.hyperpod, Poller(POLL, self.clock), self.eks, self.kubernetes)

    def node_steps(self) -> NodeSteps:
        return NodeSteps(self.hyperpod, Poller(POLL, self.clock), self.eks, self.kubernetes)

    def group_steps(self) -> InstanceGroupSteps:
        return InstanceGroupSteps(self.network, self.iam, self.hyperpod, Poller(POLL, self.clock), DEPLOYMENT)

    def stage(self) -> HyperPodStageService:
        return HyperPodStageService(
            self.network,
            self.iam,
            self.eks,
            self.hyperpod,
            self.buckets,
            Poller(POLL, self.clock),
            SERVICE_BOUNDARY,
            DEPLOYMENT,
        )
