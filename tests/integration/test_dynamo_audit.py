"""The DynamoDB audit log on moto: the trail of a cluster and the whole trail newest first, filtered, in pages."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import boto3
import pytest
from moto import mock_aws

from controlplane.adapters.aws import session
from controlplane.adapters.aws.dynamo import audit
from controlplane.adapters.aws.dynamo.audit import DynamoAuditLog
from controlplane.core.ports.persistence import AuditQuery
from controlplane.models.audit import AuditEntry
from controlplane.models.errors import InvalidRequestError
from sandbox.aws.stubber import SerializedStubber

START = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture
def log(monkeypatch) -> Iterator[DynamoAuditLog]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        SerializedStubber.install()
        session._client.cache_clear()
        boto3.client("dynamodb").create_table(
            TableName="audit",
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("target", "sortKey", "log")],
            KeySchema=[
                {"AttributeName": "target", "KeyType": "HASH"},
                {"AttributeName": "sortKey", "KeyType": "RANGE"},
            ],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "byTime",
                    "Projection": {"ProjectionType": "ALL"},
                    "KeySchema": [
                        {"AttributeName": "log", "KeyType": "HASH"},
                        {"AttributeName": "sortKey", "KeyType": "RANGE"},
                    ],
                }
            ],
        )
        try:
            log = DynamoAuditLog("audit")
            for minute in range(7):
                log.record(
                    AuditEntry(
                        target="demo" if minute % 2 else "other",
                        at=START + timedelta(minutes=minute),
                        actor="bob" if minute == 3 else "alice",
                        role="admin",
                        action="POST /clusters",
                        operationId=f"op-{minute:020d}",
                        requestId=f"r-{minute}",
                        outcome="202",
                    )
                )
            yield log
        finally:
            SerializedStubber.uninstall()
            session._client.cache_clear()


def read_all(log: DynamoAuditLog, query: AuditQuery, limit: int) -> list[list[str]]:
    pages, token = [], None
    while True:
        page = log.page(query, limit, token)
        pages.append([entry.requestId for entry in page.items])
        if page.next_token is None:
            return pages
        token = page.next_token


def test_the_whole_trail_reads_newest_first_in_pages_and_the_last_has_no_token(log):
    assert read_all(log, AuditQuery(), 3) == [["r-6", "r-5", "r-4"], ["r-3", "r-2", "r-1"], ["r-0"]]


def test_a_clusters_trail_reads_its_own_partition_newest_first(log):
    assert read_all(log, AuditQuery(cluster_tag="demo"), 2) == [["r-5", "r-3"], ["r-1"]]


def test_filters_apply_across_the_items_read_and_pages_stay_full(log):
    assert read_all(log, AuditQuery(actor="alice"), 2) == [["r-6", "r-5"], ["r-4", "r-2"], ["r-1", "r-0"]]
    assert read_all(log, AuditQuery(operation_id=f"op-{3:020d}"), 2) == [["r-3"]]


def test_a_filter_that_matches_little_stops_reading_at_the_bound_with_a_token(log, monkeypatch):
    monkeypatch.setattr(audit, "MAX_AUDIT_ITEMS_READ", 2)
    first = log.page(AuditQuery(actor="bob"), 5)
    assert (first.items, first.next_token is not None) == ([], True)
    assert read_all(log, AuditQuery(actor="bob"), 5) == [[], ["r-3"], [], []]


def test_a_token_of_the_other_listing_is_refused(log):
    token = log.page(AuditQuery(cluster_tag="demo"), 1).next_token
    with pytest.raises(InvalidRequestError):
        log.page(AuditQuery(), 1, token)
