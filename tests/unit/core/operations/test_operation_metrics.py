"""The operation service tells its metrics port of every transition it writes, with the record before and after."""

from __future__ import annotations

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.operations.service import OperationService
from controlplane.models.clusters import ClusterStatus, NetworkPlan
from controlplane.models.operations import Operation, OperationError, OperationKind, OperationStatus

ADMIN = Actor("alice", Role.ADMIN)
NETWORK = NetworkPlan(vpcCidr="10.90.0.0/16", cidrSource="automatic", subnets=[])


class RecordingMetrics:
    def __init__(self) -> None:
        self.transitions: list[tuple[Operation, Operation]] = []

    def transition(self, before: Operation, after: Operation) -> None:
        self.transitions.append((before, after))


@pytest.fixture
def metrics() -> RecordingMetrics:
    return RecordingMetrics()


@pytest.fixture
def service(repository, registry, launcher, account, clock, audit, clusters, make_record, metrics):
    registry.create(make_record(status=ClusterStatus.CREATING))
    return OperationService(
        repository, registry, launcher, account, clock, audit, clusters.record_outcome, metrics=metrics
    )


def test_each_written_transition_reaches_the_metrics_with_what_it_was_and_is(service, registry, metrics):
    operation = service.start(
        registry.find("demo"), ADMIN, OperationKind.CREATE_EKS_CLUSTER, kubernetesVersion="1.34", network=NETWORK
    )
    metrics.transitions.clear()  # the start's own writes (the execution's ARN)

    service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")
    service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")  # a retried step writes nothing
    service.fail(operation.operationId, OperationError(code="Boom", message="the step failed"))

    statuses = [(before.status, after.status) for before, after in metrics.transitions]
    assert statuses == [
        (OperationStatus.PENDING, OperationStatus.RUNNING),
        (OperationStatus.RUNNING, OperationStatus.FAILED),
    ]
