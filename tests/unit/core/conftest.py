"""Fixtures for unit tests of the core: in-memory fakes of the ports (tests/fakes) and registry records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.clusters.registry import ClusterService
from controlplane.core.operations.service import OperationService
from controlplane.models.clusters import ClusterRecord, ClusterStatus
from tests.fakes.account import ACCOUNT_ID, InMemoryAccountGateway
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.persistence import (
    FakeClock,
    InMemoryAuditLog,
    InMemoryClusterRegistry,
    InMemoryOperationRepository,
    RecordingLauncher,
)

REGION = "us-west-2"


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


@pytest.fixture
def operations(
    repository: InMemoryOperationRepository,
    registry: InMemoryClusterRegistry,
    launcher: RecordingLauncher,
    account: InMemoryAccountGateway,
    clock: FakeClock,
    audit: InMemoryAuditLog,
) -> OperationService:
    outcomes = ClusterService(
        registry, lambda region: InMemoryEksGateway(), lambda region: None, InMemoryKubernetesGateway(), clock
    )
    return OperationService(repository, registry, launcher, account, clock, audit, outcomes.record_outcome)


@pytest.fixture
def make_record(clock: FakeClock) -> Callable[..., ClusterRecord]:
    """A registry record of an ACTIVE cluster `demo` with the given stages done; `fields` override any field."""

    def make(*stages: str, **fields: Any) -> ClusterRecord:
        values: dict[str, Any] = {
            "clusterTag": "demo",
            "region": REGION,
            "status": ClusterStatus.ACTIVE,
            "eksClusterName": "eks-cluster-demo",
            "stagesDone": list(stages),
            "createdAt": clock.now(),
            "updatedAt": clock.now(),
            "createdBy": "alice",
            "accountId": ACCOUNT_ID,
        }
        return ClusterRecord(**{**values, **fields})

    return make
