"""The audit trail read: newest first, narrowed by cluster, actor (or the user the MCP server acted for) and
operation, in pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from controlplane.core.operations.audit import AuditTrail
from controlplane.core.ports.persistence import AuditQuery
from controlplane.models.audit import AuditEntry
from controlplane.models.errors import InvalidRequestError
from tests.fakes.persistence import InMemoryAuditLog

START = datetime(2026, 12, 1, tzinfo=UTC)


def entry(
    minute: int,
    target: str = "demo",
    actor: str = "alice",
    operation_id: str | None = None,
    for_user: str | None = None,
) -> AuditEntry:
    return AuditEntry(
        target=target,
        at=START + timedelta(minutes=minute),
        actor=actor,
        role="admin",
        action=f"POST /clusters/{target}/hyperpod",
        requestId=f"r-{minute}",
        outcome="202",
        operationId=operation_id,
        onBehalfOf=for_user,
    )


@pytest.fixture
def log() -> InMemoryAuditLog:
    log = InMemoryAuditLog()
    for item in (
        entry(1),
        entry(2, target="other", actor="bob"),
        entry(3, operation_id="op-00000000000000000003"),
        entry(4, actor="arn:aws:sts::123456789012:assumed-role/mcp/s", for_user="carol"),
    ):
        log.record(item)
    return log


def request_ids(entries: list[AuditEntry]) -> list[str]:
    return [item.requestId for item in entries]


def test_the_whole_trail_reads_newest_first(log):
    assert request_ids(AuditTrail(log).page(AuditQuery()).items) == ["r-4", "r-3", "r-2", "r-1"]


def test_a_cluster_filter_keeps_the_requests_that_named_it(log):
    assert request_ids(AuditTrail(log).page(AuditQuery(cluster_tag="other")).items) == ["r-2"]


def test_an_actor_filter_matches_the_caller_or_the_user_the_mcp_server_acted_for(log):
    trail = AuditTrail(log)
    assert request_ids(trail.page(AuditQuery(actor="bob")).items) == ["r-2"]
    assert request_ids(trail.page(AuditQuery(actor="carol")).items) == ["r-4"]


def test_an_operation_filter_keeps_that_operations_requests(log):
    query = AuditQuery(cluster_tag="demo", operation_id="op-00000000000000000003")
    assert request_ids(AuditTrail(log).page(query).items) == ["r-3"]


def test_pages_follow_each_other_and_the_last_has_no_token(log):
    trail = AuditTrail(log)
    first = trail.page(AuditQuery(), limit=3)
    second = trail.page(AuditQuery(), limit=3, token=first.next_token)
    assert (request_ids(first.items), request_ids(second.items), second.next_token) == (
        ["r-4", "r-3", "r-2"],
        ["r-1"],
        None,
    )


def test_a_token_that_is_not_ours_is_refused(log):
    with pytest.raises(InvalidRequestError):
        AuditTrail(log).page(AuditQuery(), token="not-a-token")
