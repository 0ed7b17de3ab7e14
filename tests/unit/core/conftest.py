"""Fixtures for unit tests of the core: in-memory fakes of the ports (tests/fakes) and registry records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from controlplane.core.operations.service import OperationService
from controlplane.models.clusters import ClusterRecord, ClusterStatus
from tests.fakes.account import ACCOUNT_ID, InMemoryAccountGateway
from tests.fakes.persistence import FakeClock, InMemoryClusterRegistry, InMemoryOperationRepository, RecordingLauncher

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
def repository() -> InMemoryOperationRepository:
    return InMemoryOperationRepository()


@pytest.fixture
def operations(
    repository: InMemoryOperationRepository,
    registry: InMemoryClusterRegistry,
    launcher: RecordingLauncher,
    account: InMemoryAccountGateway,
    clock: FakeClock,
) -> OperationService:
    return OperationService(repository, registry, launcher, account, clock, wait_poll_seconds=0.5)


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
