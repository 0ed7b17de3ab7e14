"""The DynamoDB adapters on moto, with each request serialized as the real service does (harness H1)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import boto3
import pytest
from moto import mock_aws

from controlplane.adapters.aws import session
from controlplane.adapters.aws.dynamo.confirmations import DynamoConfirmationStore
from controlplane.adapters.aws.dynamo.operations import DynamoOperationRepository
from controlplane.adapters.aws.dynamo.registry import DynamoClusterRegistry
from controlplane.core.ports.persistence import ClusterLock, Confirmation
from controlplane.models.clusters import ClusterRecord, ClusterStatus, LastOperation
from controlplane.models.errors import ClusterBusyError, ClusterExistsError, StaleVersionError
from controlplane.models.operations import Operation, OperationKind, OperationStatus, Stage
from sandbox.aws.stubber import SerializedStubber

NOW = datetime(2026, 12, 2, tzinfo=UTC)


@pytest.fixture
def tables(monkeypatch) -> Iterator[None]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        SerializedStubber.install()
        session._client.cache_clear()
        dynamodb = boto3.client("dynamodb")
        dynamodb.create_table(
            TableName="ops",
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[
                {"AttributeName": n, "AttributeType": "S"} for n in ("operationId", "clusterTag", "createdAt")
            ],
            KeySchema=[{"AttributeName": "operationId", "KeyType": "HASH"}],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "byCluster",
                    "Projection": {"ProjectionType": "ALL"},
                    "KeySchema": [
                        {"AttributeName": "clusterTag", "KeyType": "HASH"},
                        {"AttributeName": "createdAt", "KeyType": "RANGE"},
                    ],
                }
            ],
        )
        dynamodb.create_table(
            TableName="clusters",
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("clusterTag", "registry")],
            KeySchema=[{"AttributeName": "clusterTag", "KeyType": "HASH"}],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "byRegistry",
                    "Projection": {"ProjectionType": "ALL"},
                    "KeySchema": [
                        {"AttributeName": "registry", "KeyType": "HASH"},
                        {"AttributeName": "clusterTag", "KeyType": "RANGE"},
                    ],
                }
            ],
        )
        try:
            yield
        finally:
            SerializedStubber.uninstall()
            session._client.cache_clear()


def operation(operation_id: str = "op-0123456789") -> Operation:
    return Operation(
        operationId=operation_id,
        kind=OperationKind.CREATE_EKS_CLUSTER,
        target="demo",
        incarnation="inc-1",
        stages=[Stage(name="network")],
        actor="alice",
        createdAt=NOW,
        updatedAt=NOW,
    )


def record(tag: str = "demo") -> ClusterRecord:
    return ClusterRecord(
        clusterTag=tag,
        incarnation="inc-1",
        region="us-west-2",
        status=ClusterStatus.CREATING,
        eksClusterName=f"eks-cluster-{tag}",
        createdAt=NOW,
        updatedAt=NOW,
        createdBy="alice",
    )


def test_fifty_concurrent_attempts_at_one_transition_produce_exactly_one_winner(tables):
    repository = DynamoOperationRepository("ops")
    repository.create(operation())
    sys.setswitchinterval(1e-6)
    try:

        def advance(index: int) -> bool:
            running = operation().model_copy(update={"status": OperationStatus.RUNNING, "currentStep": str(index)})
            try:
                repository.replace(running, expected_version=1)
            except StaleVersionError:
                return False
            return True

        with ThreadPoolExecutor(max_workers=50) as pool:
            outcomes = list(pool.map(advance, range(50)))
    finally:
        sys.setswitchinterval(0.005)
    assert outcomes.count(True) == 1
    stored = repository.find("op-0123456789")
    assert stored.version == 2
    assert stored.currentStep == str(outcomes.index(True))


def test_an_operation_id_cannot_be_created_twice(tables):
    repository = DynamoOperationRepository("ops")
    repository.create(operation())
    with pytest.raises(StaleVersionError):
        repository.create(operation())


def test_operations_are_listed_per_cluster_newest_first(tables):
    repository = DynamoOperationRepository("ops")
    for index in range(3):
        later = NOW.replace(hour=index)
        repository.create(operation(f"op-000000000{index}").model_copy(update={"createdAt": later}))
    first = repository.list_for_cluster("demo", 2)
    assert [op.operationId for op in first.items] == ["op-0000000002", "op-0000000001"]
    last = repository.list_for_cluster("demo", 2, first.next_token)
    assert [op.operationId for op in last.items] == ["op-0000000000"]
    assert last.next_token is None


def test_a_page_that_ends_the_list_exactly_has_no_token(tables):
    repository = DynamoOperationRepository("ops")
    for index in range(2):
        repository.create(operation(f"op-000000000{index}").model_copy(update={"createdAt": NOW.replace(hour=index)}))
    assert repository.list_for_cluster("demo", 2).next_token is None


def test_only_one_of_fifty_concurrent_operations_gets_the_cluster_lock(tables):
    registry = DynamoClusterRegistry("clusters")
    registry.create(record())

    def acquire(index: int) -> bool:
        try:
            registry.acquire("demo", ClusterLock(f"op-{index:010d}", 1, NOW))
        except ClusterBusyError:
            return False
        return True

    with ThreadPoolExecutor(max_workers=50) as pool:
        outcomes = list(pool.map(acquire, range(50)))
    assert outcomes.count(True) == 1
    holder = registry.find("demo").activeOperationId
    assert registry.holder("demo") == ClusterLock(holder, 1, NOW)
    registry.release("demo", "op-someoneelse", 1)
    assert registry.find("demo").activeOperationId == holder
    registry.release("demo", holder, 1)
    assert registry.find("demo").activeOperationId is None
    assert registry.holder("demo") is None


def test_a_cluster_keeps_how_its_last_operation_ended(tables):
    registry = DynamoClusterRegistry("clusters")
    last = LastOperation(
        operationId="op-1",
        kind=OperationKind.CREATE_CLUSTER,
        status=OperationStatus.FAILED,
        failedStage="hyperpod",
        failedStageNumber=3,
        endedAt=NOW,
    )
    registry.create(record().model_copy(update={"lastOperation": last}))
    assert registry.find("demo").lastOperation == last
    assert registry.page(10).items[0].lastOperation == last


def test_a_lock_is_released_only_by_the_attempt_holding_it(tables):
    registry = DynamoClusterRegistry("clusters")
    registry.create(record())
    registry.acquire("demo", ClusterLock("op-0000000001", 2, NOW))
    with pytest.raises(ClusterBusyError):
        registry.acquire("demo", ClusterLock("op-0000000001", 2, NOW))
    registry.release("demo", "op-0000000001", 1)
    assert registry.holder("demo") == ClusterLock("op-0000000001", 2, NOW)


def test_a_stale_lock_is_replaced_only_while_it_is_still_the_same_lock(tables):
    registry = DynamoClusterRegistry("clusters")
    registry.create(record())
    stale = ClusterLock("op-old", 1, NOW)
    registry.acquire("demo", stale)
    registry.acquire("demo", ClusterLock("op-a", 1, NOW), replacing=stale)
    with pytest.raises(ClusterBusyError):
        registry.acquire("demo", ClusterLock("op-b", 1, NOW), replacing=stale)
    assert registry.holder("demo").operation_id == "op-a"
    registry.save(record())
    assert registry.holder("demo").operation_id == "op-a"


def test_six_concurrent_reservations_of_one_cidr_leave_it_with_one_cluster_until_released(tables):
    registry = DynamoClusterRegistry("clusters")
    registry.create(record())

    def reserve(index: int) -> bool:
        return registry.reserve_cidr("us-west-2", "10.92.0.0/16", f"tag-{index}")

    with ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = list(pool.map(reserve, range(6)))
    assert outcomes.count(True) == 1
    owner = f"tag-{outcomes.index(True)}"
    assert registry.reserved_cidrs("us-west-2") == {"10.92.0.0/16": owner}
    assert registry.reserved_cidrs("eu-west-1") == {}
    assert [r.clusterTag for r in registry.list()] == ["demo"]
    registry.release_cidr("us-west-2", "10.92.0.0/16", "someone-else")
    assert registry.reserved_cidrs("us-west-2") == {"10.92.0.0/16": owner}
    registry.release_cidr("us-west-2", "10.92.0.0/16", owner)
    assert registry.reserved_cidrs("us-west-2") == {}


def test_a_confirmation_is_taken_only_by_the_request_it_was_issued_for(tables):
    boto3.client("dynamodb").create_table(
        TableName="confirmations",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "token", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "token", "KeyType": "HASH"}],
    )
    store = DynamoConfirmationStore("confirmations")
    issued = Confirmation("tok", "alice", "delete-cluster", "demo", "abc", NOW + timedelta(minutes=10))
    store.put(issued)
    assert store.take("tok", "bob", "delete-cluster", "demo", "abc", NOW) is None
    assert store.take("tok", "alice", "delete-cluster", "other", "abc", NOW) is None
    assert store.take("tok", "alice", "delete-cluster", "demo", "changed", NOW) is None
    assert store.take("tok", "alice", "delete-cluster", "demo", "abc", NOW + timedelta(minutes=11)) is None
    assert store.take("tok", "alice", "delete-cluster", "demo", "abc", NOW) == issued
    assert store.take("tok", "alice", "delete-cluster", "demo", "abc", NOW) is None


def test_registry_refuses_a_taken_tag_and_lists_clusters_without_scanning(tables):
    registry = DynamoClusterRegistry("clusters")
    registry.create(record("alpha"))
    registry.create(record("beta"))
    with pytest.raises(ClusterExistsError):
        registry.create(record("alpha"))
    assert [r.clusterTag for r in registry.list()] == ["alpha", "beta"]


def test_registry_pages_by_tag_and_its_last_page_has_no_token(tables):
    registry = DynamoClusterRegistry("clusters")
    for tag in ("gamma", "alpha", "beta"):
        registry.create(record(tag))
    first = registry.page(2)
    last = registry.page(2, first.next_token)
    assert [r.clusterTag for r in first.items] == ["alpha", "beta"]
    assert [r.clusterTag for r in last.items] == ["gamma"]
    assert last.next_token is None
