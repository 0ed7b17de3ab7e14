"""Fixtures for unit tests of the core: in-memory fakes of the ports (tests/fakes), the cluster registry and
operations services over them, and registry records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.operations.service import OperationService
from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord
from tests.fakes.account import InMemoryAccountGateway
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.persistence import (
    FakeClock,
    InMemoryAuditLog,
    InMemoryClusterRegistry,
    InMemoryOperationRepository,
    RecordingLauncher,
)
from tests.unit.records import cluster_record


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def registry() -> InMemoryClusterRegistry:
    return InMemoryClusterRegistry()


@pytest.fixture
def launcher() -> RecordingLauncher:
    return RecordingLauncher(failed_state="Ensure Cluster Role")


@pytest.fixture
def account() -> InMemoryAccountGateway:
    return InMemoryAccountGateway()


@pytest.fixture
def audit() -> InMemoryAuditLog:
    return InMemoryAuditLog()


@pytest.fixture
def repository() -> InMemoryOperationRepository:
    return InMemoryOperationRepository()


class HyperPodClusters:
    """Only `find_cluster` of the HyperPod gateway, which the clusters context reads (the full fake is the
    HyperPod context's)."""

    def __init__(self) -> None:
        self.clusters: dict[str, HyperPodCluster] = {}

    def find_cluster(self, name: str) -> HyperPodCluster | None:
        return self.clusters.get(name)


@pytest.fixture
def eks() -> InMemoryEksGateway:
    return InMemoryEksGateway()


@pytest.fixture
def hyperpod() -> HyperPodClusters:
    return HyperPodClusters()


@pytest.fixture
def kubernetes() -> InMemoryKubernetesGateway:
    return InMemoryKubernetesGateway()


@pytest.fixture
def clusters(
    registry: InMemoryClusterRegistry,
    eks: InMemoryEksGateway,
    hyperpod: HyperPodClusters,
    kubernetes: InMemoryKubernetesGateway,
    clock: FakeClock,
) -> ClusterService:
    """The cluster registry's service over the fakes; it also records the outcome of every finished operation."""
    return ClusterService(registry, lambda region: eks, lambda region: hyperpod, kubernetes, clock)


@pytest.fixture
def operations(
    repository: InMemoryOperationRepository,
    registry: InMemoryClusterRegistry,
    launcher: RecordingLauncher,
    account: InMemoryAccountGateway,
    clock: FakeClock,
    audit: InMemoryAuditLog,
    clusters: ClusterService,
) -> OperationService:
    return OperationService(repository, registry, launcher, account, clock, audit, clusters.record_outcome)


@pytest.fixture
def make_record(clock: FakeClock) -> Callable[..., ClusterRecord]:
    """A registry record of an ACTIVE cluster `demo` with the given stages done; `fields` override any field."""

    def make(*stages: str, **fields: Any) -> ClusterRecord:
        return cluster_record(*stages, at=clock.now(), **fields)

    return make
