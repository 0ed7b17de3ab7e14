"""The EventWaits table on moto: a token is taken once, and the note of the last event on a key only moves forward
and is never mistaken for a waiting token."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import boto3
import pytest
from moto import mock_aws

from controlplane.adapters.aws import session
from controlplane.adapters.aws.events import DynamoEventWaits
from sandbox.aws.stubber import SerializedStubber

NOW = datetime(2026, 12, 2, tzinfo=UTC)
KEY = "us-west-2#hp-cluster-demo#cluster"


@pytest.fixture
def waits(monkeypatch) -> Iterator[DynamoEventWaits]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        SerializedStubber.install()
        session._client.cache_clear()
        boto3.client("dynamodb").create_table(
            TableName="waits",
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("waitKey", "taskToken")],
            KeySchema=[
                {"AttributeName": "waitKey", "KeyType": "HASH"},
                {"AttributeName": "taskToken", "KeyType": "RANGE"},
            ],
        )
        try:
            yield DynamoEventWaits("waits")
        finally:
            SerializedStubber.uninstall()
            session._client.cache_clear()


def test_the_last_event_noted_on_a_key_only_moves_forward(waits: DynamoEventWaits) -> None:
    assert waits.signalled(KEY) is None
    waits.signal(KEY, NOW)
    waits.signal(KEY, NOW - timedelta(seconds=5))  # a slower handler of an earlier event
    assert waits.signalled(KEY) == NOW
    waits.signal(KEY, NOW + timedelta(seconds=1))
    assert waits.signalled(KEY) == NOW + timedelta(seconds=1)


def test_a_token_is_removed_once_and_the_note_is_not_a_token(waits: DynamoEventWaits) -> None:
    waits.signal(KEY, NOW)
    waits.add(KEY, "token-1", "in service")
    waits.add(KEY, "token-2", "in service")
    assert waits.remove(KEY, "token-1") is True
    assert waits.remove(KEY, "token-1") is False
    assert waits.take(KEY) == ["token-2"]
    assert waits.signalled(KEY) == NOW
