"""Live logs' AWS adapters: the connections table on moto (built from its table spec), the pusher's lease as a
conditional write, and a post to a gone connection (botocore's Stubber: moto never answers 410)."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from botocore.stub import ANY, Stubber
from moto import mock_aws

from controlplane.adapters.aws import session
from controlplane.adapters.aws.tables import TABLES
from controlplane.adapters.aws.websocket import ApiGatewayConnectionNotifier, DynamoConnectionRepository
from controlplane.core.auth import Actor, Role
from controlplane.core.logstream.service import LiveLogService
from controlplane.core.ports.logstream import Connection, PusherLease
from controlplane.models.logstream import LogTopic
from sandbox.aws.stubber import SerializedStubber
from tests.fakes.logstream import RecordingPusherLauncher, ScriptedLogSource
from tests.fakes.persistence import FakeClock

TABLE = "connections"
ENDPOINT = "https://abc123.execute-api.us-east-1.amazonaws.com/v1"


@pytest.fixture
def repository(monkeypatch) -> Iterator[DynamoConnectionRepository]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    (spec,) = [spec for spec in TABLES if spec.setting == "connections_table"]
    (index,) = spec.indexes
    with mock_aws():
        SerializedStubber.install()
        session._client.cache_clear()
        boto3.client("dynamodb").create_table(
            TableName=TABLE,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[
                {"AttributeName": n, "AttributeType": "S"} for n in (spec.partition_key, index.partition_key)
            ],
            KeySchema=[{"AttributeName": spec.partition_key, "KeyType": "HASH"}],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": index.name,
                    "KeySchema": [{"AttributeName": index.partition_key, "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        )
        yield DynamoConnectionRepository(TABLE)
        SerializedStubber.uninstall()
        session._client.cache_clear()


def test_connections_are_found_by_the_topic_they_follow(repository: DynamoConnectionRepository) -> None:
    repository.add(Connection("c1", "alice", Role.VIEWER), 2_000_000_000)
    repository.add(Connection("c2", "bob", Role.ADMIN), 2_000_000_000)
    repository.follow("c1", "demo/llama")
    repository.follow("c2", "demo/llama")
    repository.follow("c2", None)

    assert repository.followers("demo/llama") == ["c1"]
    assert repository.get("c1") == Connection("c1", "alice", Role.VIEWER, "demo/llama")
    assert repository.get("c2") == Connection("c2", "bob", Role.ADMIN)
    item = boto3.client("dynamodb").get_item(TableName=TABLE, Key={"connectionId": {"S": "c1"}})["Item"]
    assert item["ttl"] == {"N": "2000000000"}


def test_following_after_the_connection_closed_records_nothing(repository: DynamoConnectionRepository) -> None:
    repository.follow("closed", "demo/llama")
    assert repository.get("closed") is None
    assert repository.followers("demo/llama") == []


def test_one_pusher_holds_a_topic_until_its_lease_expires(repository: DynamoConnectionRepository) -> None:
    first = PusherLease("demo/llama", "one", until=100.0)
    second = PusherLease("demo/llama", "two", until=200.0)
    assert repository.acquire(first, now=50.0)
    assert not repository.acquire(second, now=60.0)
    assert repository.renew(PusherLease("demo/llama", "one", 150.0, "llama-0", 7, "step 7"))
    assert repository.lease("demo/llama") == PusherLease("demo/llama", "one", 150.0, "llama-0", 7, "step 7")
    assert repository.followers("demo/llama") == []  # a lease is never a follower

    assert repository.acquire(second, now=151.0)
    assert not repository.renew(first)
    repository.release(first)  # not the owner: nothing
    assert repository.lease("demo/llama") == second
    repository.release(second)
    assert repository.lease("demo/llama") is None


def test_a_gone_connection_is_deleted_on_push_and_the_others_still_receive(
    repository: DynamoConnectionRepository,
) -> None:
    notifier = ApiGatewayConnectionNotifier(ENDPOINT)
    source = ScriptedLogSource({"llama": {"llama-worker-0": ["step 1"]}})
    launcher = RecordingPusherLauncher()
    # A run of no time: one tick, then the pusher hands over.
    service = LiveLogService(repository, notifier, launcher, source, FakeClock(), tick_seconds=1.0, run_seconds=0)
    for connection_id in ("gone", "open"):
        service.connect(connection_id, Actor(principal=connection_id, role=Role.VIEWER))
        repository.follow(connection_id, "demo/llama")
    service.connect("subscriber", Actor(principal="subscriber", role=Role.VIEWER))

    with Stubber(notifier.management) as stub:
        stub.add_response("post_to_connection", {}, {"ConnectionId": "subscriber", "Data": ANY})
        stub.add_response("post_to_connection", {}, {"ConnectionId": "subscriber", "Data": ANY})
        service.subscribe("subscriber", LogTopic(clusterTag="demo", jobName="llama"))
        source.jobs["llama"]["llama-worker-0"].append("step 2")
        stub.add_client_error("post_to_connection", service_error_code="GoneException", http_status_code=410)
        stub.add_response("post_to_connection", {}, {"ConnectionId": "open", "Data": ANY})
        stub.add_response("post_to_connection", {}, {"ConnectionId": "subscriber", "Data": ANY})
        ((_, owner),) = launcher.started
        service.push("demo/llama", owner)
        stub.assert_no_pending_responses()

    assert repository.get("gone") is None
    assert sorted(repository.followers("demo/llama")) == ["open", "subscriber"]
