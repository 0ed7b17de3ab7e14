"""The sandbox API's sleep: it ends at the next write to a DynamoDB table, which is what a long poll waits for."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import boto3
import pytest
from aws_lambda_powertools.event_handler.api_gateway import BaseRouter
from moto import mock_aws

from sandbox.aws.stubber import SerializedStubber, TableChanges
from sandbox.environment import ApiEnvironment


def announce_after(changes: TableChanges, seconds: float) -> threading.Thread:
    thread = threading.Timer(seconds, changes.announce)
    thread.start()
    return thread


def test_a_wait_returns_at_once_when_a_write_came_since_what_it_saw() -> None:
    changes = TableChanges()
    changes.announce()
    started = time.monotonic()
    assert changes.wait(seen=0, timeout=30) == 1
    assert time.monotonic() - started < 1


def test_a_wait_ends_at_the_next_write_or_at_its_timeout() -> None:
    changes = TableChanges()
    writer = announce_after(changes, 0.1)
    started = time.monotonic()
    assert changes.wait(seen=0, timeout=30) == 1
    assert time.monotonic() - started < 5
    writer.join()

    started = time.monotonic()
    assert changes.wait(seen=1, timeout=0.1) == 1
    assert time.monotonic() - started >= 0.1


def test_a_sleep_in_a_request_ends_at_a_table_write_and_lends_the_environment_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    changes = TableChanges()
    environment = ApiEnvironment(changes)
    monkeypatch.setattr(BaseRouter, "current_event", "first", raising=False)
    monkeypatch.setattr(BaseRouter, "lambda_context", None, raising=False)
    woke: list[tuple[float, str]] = []

    def long_poll() -> dict[str, str]:
        # The first sleep of a thread has seen no count yet: it returns at once, as after any unseen write.
        environment.sleep(30)
        started = time.monotonic()
        environment.sleep(30)
        woke.append((time.monotonic() - started, BaseRouter.current_event))
        return {}

    def another_request() -> dict[str, str]:
        BaseRouter.current_event = "second"
        return {"served": "yes"}

    poller = threading.Thread(target=environment.run, args=(long_poll,))
    poller.start()
    time.sleep(0.1)
    # Another request runs while the long poll sleeps; then a write wakes the poll, with its own request back.
    assert environment.run(another_request) == {"served": "yes"}
    assert woke == []
    changes.announce()
    poller.join(timeout=5)
    assert not poller.is_alive()
    assert len(woke) == 1
    assert woke[0][0] < 5 and woke[0][1] == "first"


@pytest.fixture
def stubber() -> Iterator[None]:
    with mock_aws():
        SerializedStubber.install()
        try:
            yield
        finally:
            SerializedStubber.uninstall()


def test_the_stubber_announces_writes_to_dynamodb_tables_and_not_reads(stubber: None) -> None:
    dynamodb = boto3.client("dynamodb", region_name="us-west-2")
    dynamodb.create_table(
        TableName="t",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    before = SerializedStubber.table_changes.count()
    dynamodb.put_item(TableName="t", Item={"pk": {"S": "a"}})
    dynamodb.update_item(
        TableName="t",
        Key={"pk": {"S": "a"}},
        UpdateExpression="SET v = :v",
        ExpressionAttributeValues={":v": {"S": "1"}},
    )
    dynamodb.get_item(TableName="t", Key={"pk": {"S": "a"}})
    dynamodb.query(TableName="t", KeyConditionExpression="pk = :a", ExpressionAttributeValues={":a": {"S": "a"}})
    dynamodb.delete_item(TableName="t", Key={"pk": {"S": "a"}})
    assert SerializedStubber.table_changes.count() - before == 3
