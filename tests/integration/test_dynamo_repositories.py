"""The DynamoDB adapters on moto, with each request serialized as the real service does (harness H1)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import boto3
import pytest
from moto import mock_aws

from controlplane.adapters.aws import session
from controlplane.adapters.aws.dynamo import DynamoClusterRegistry, DynamoOperationRepository
from controlplane.models.clusters import ClusterRecord, ClusterStatus
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
        stages=[Stage(name="network")],
        actor="alice",
        createdAt=NOW,
        updatedAt=NOW,
    )


def record(tag: str = "demo") -> ClusterRecord:
    return ClusterRecord(
        clusterTag=tag,
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
            registry.acquire("demo", f"op-{index:010d}", NOW)
        except ClusterBusyError:
            return False
        return True

    with ThreadPoolExecutor(max_workers=50) as pool:
        outcomes = list(pool.map(acquire, range(50)))
    assert outcomes.count(True) == 1
    holder = registry.find("demo").activeOperationId
    registry.release("demo", "op-someoneelse", NOW)
    assert registry.find("demo").activeOperationId == holder
    registry.release("demo", holder, NOW)
    assert registry.find("demo").activeOperationId is None


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
