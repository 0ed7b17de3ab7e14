"""The control plane's own state: operations, the cluster registry and its lock, audit, confirmations, the
workflow launcher and time."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from controlplane.core.paging import Page, page_of
from controlplane.core.ports.persistence import AuditQuery, ClusterLock, Confirmation
from controlplane.models.audit import AuditEntry
from controlplane.models.clusters import ClusterRecord
from controlplane.models.drift import DriftReport
from controlplane.models.errors import ClusterBusyError, ClusterExistsError, ClusterNotFoundError, StaleVersionError
from controlplane.models.operations import Operation, OperationKind


class FakeClock:
    def __init__(self) -> None:
        self.current = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.current

    def sleep(self, seconds: float) -> None:
        self.current += timedelta(seconds=seconds)


class InMemoryOperationRepository:
    def __init__(self) -> None:
        self.items: dict[str, Operation] = {}
        self._lock = threading.Lock()

    def create(self, operation: Operation) -> None:
        with self._lock:
            if operation.operationId in self.items:
                raise StaleVersionError("exists")
            self.items[operation.operationId] = operation

    def find(self, operation_id: str) -> Operation | None:
        return self.items.get(operation_id)

    def replace(self, operation: Operation, expected_version: int) -> Operation:
        with self._lock:
            if self.items[operation.operationId].version != expected_version:
                raise StaleVersionError("changed")
            written = operation.model_copy(update={"version": expected_version + 1})
            self.items[operation.operationId] = written
            return written

    def list_for_cluster(self, cluster_tag: str, limit: int, token: str | None = None) -> Page[Operation]:
        found = [op for op in self.items.values() if op.target == cluster_tag]
        return page_of(sorted(found, key=lambda op: (op.createdAt, op.operationId), reverse=True), limit, token)


class InMemoryClusterRegistry:
    """Like the DynamoDB registry: `save` upserts and keeps the lock, which only acquire and release change; a
    lock is taken only when free (or still exactly the stale lock being replaced) and released only by the
    attempt holding it; CIDR reservations are conditional on the cluster holding them."""

    def __init__(self, *records: ClusterRecord) -> None:
        self.items: dict[str, ClusterRecord] = {record.clusterTag: record for record in records}
        self.locks: dict[str, ClusterLock] = {}
        self.cidrs: dict[tuple[str, str], str] = {}
        self._mutex = threading.Lock()

    def find(self, cluster_tag: str) -> ClusterRecord | None:
        return self.items.get(cluster_tag)

    def list(self) -> list[ClusterRecord]:
        return list(self.items.values())

    def page(self, limit: int, token: str | None = None) -> Page[ClusterRecord]:
        return page_of(sorted(self.items.values(), key=lambda record: record.clusterTag), limit, token)

    def create(self, record: ClusterRecord) -> None:
        with self._mutex:
            if record.clusterTag in self.items:
                raise ClusterExistsError("exists")
            self.items[record.clusterTag] = record

    def save(self, record: ClusterRecord) -> None:
        active = self.items[record.clusterTag].activeOperationId if record.clusterTag in self.items else None
        self.items[record.clusterTag] = record.model_copy(update={"activeOperationId": active})

    def acquire(self, cluster_tag: str, lock: ClusterLock, replacing: ClusterLock | None = None) -> None:
        with self._mutex:
            record = self.items.get(cluster_tag)
            if record is None:
                raise ClusterNotFoundError(f"Cluster '{cluster_tag}' is no longer registered.")
            if self.locks.get(cluster_tag) != replacing:
                raise ClusterBusyError("busy", {"activeOperationId": record.activeOperationId})
            self.locks[cluster_tag] = lock
            self.items[cluster_tag] = record.model_copy(update={"activeOperationId": lock.operation_id})

    def holder(self, cluster_tag: str) -> ClusterLock | None:
        return self.locks.get(cluster_tag)

    def release(self, cluster_tag: str, operation_id: str, attempt: int) -> None:
        with self._mutex:
            lock = self.locks.get(cluster_tag)
            if lock is None or (lock.operation_id, lock.attempt) != (operation_id, attempt):
                return
            del self.locks[cluster_tag]
            record = self.items.get(cluster_tag)
            if record is not None:
                self.items[cluster_tag] = record.model_copy(update={"activeOperationId": None})

    def reserved_cidrs(self, region: str) -> dict[str, str]:
        return {cidr: tag for (reserved_in, cidr), tag in self.cidrs.items() if reserved_in == region}

    def reserve_cidr(self, region: str, cidr: str, cluster_tag: str) -> bool:
        with self._mutex:
            if (region, cidr) in self.cidrs:
                return False
            self.cidrs[(region, cidr)] = cluster_tag
            return True

    def release_cidr(self, region: str, cidr: str, cluster_tag: str) -> None:
        with self._mutex:
            if self.cidrs.get((region, cidr)) == cluster_tag:
                del self.cidrs[(region, cidr)]

    def delete(self, cluster_tag: str) -> None:
        self.items.pop(cluster_tag, None)
        self.locks.pop(cluster_tag, None)


class InMemoryAuditLog:
    def __init__(self) -> None:
        self.entries: list[AuditEntry] = []

    def record(self, entry: AuditEntry) -> None:
        self.entries.append(entry)

    def page(self, query: AuditQuery, limit: int, token: str | None = None) -> Page[AuditEntry]:
        found = [entry for entry in self.entries if query.matches(entry)]
        return page_of(sorted(found, key=lambda entry: (entry.at, entry.requestId), reverse=True), limit, token)


class InMemoryConfirmationStore:
    """Like the DynamoDB store: a token is removed only by a request that matches it in full before it expires."""

    def __init__(self) -> None:
        self.items: dict[str, Confirmation] = {}

    def put(self, confirmation: Confirmation) -> None:
        self.items[confirmation.token] = confirmation

    def take(
        self, token: str, principal: str, action: str, target: str, fingerprint: str, now: datetime
    ) -> Confirmation | None:
        stored = self.items.get(token)
        if stored is None or (stored.principal, stored.action, stored.target, stored.fingerprint) != (
            principal,
            action,
            target,
            fingerprint,
        ):
            return None
        if stored.expires_at < now:
            return None
        return self.items.pop(token)


class RecordingLauncher:
    """Records each start and stop; `fail_with` makes the next starts raise it (a workflow that cannot start)."""

    def __init__(self, failed_state: str | None = None) -> None:
        self.started: list[tuple[OperationKind, str, Mapping[str, Any]]] = []
        self.stopped: list[str] = []
        self.fail_with: Exception | None = None
        self._failed_state = failed_state

    def start(self, kind: OperationKind, execution_name: str, payload: Mapping[str, Any]) -> str:
        if self.fail_with is not None:
            raise self.fail_with
        self.started.append((kind, execution_name, payload))
        return f"arn:aws:states:us-east-1:123456789012:execution:sm:{execution_name}"

    def stop(self, execution_arn: str, cause: str) -> None:
        self.stopped.append(execution_arn)

    def failed_state(self, execution_arn: str) -> str | None:
        return self._failed_state


class InMemoryRecipeValuesStore:
    def __init__(self) -> None:
        self.items: dict[tuple[str, str], dict[str, Any]] = {}

    def get(self, principal: str, recipe: str) -> dict[str, Any] | None:
        return self.items.get((principal, recipe))

    def put(self, principal: str, recipe: str, values: Mapping[str, Any]) -> None:
        self.items[(principal, recipe)] = dict(values)


class InMemoryDriftReportStore:
    def __init__(self) -> None:
        self.reports: dict[str, DriftReport] = {}

    def put(self, report: DriftReport) -> None:
        self.reports[report.clusterTag] = report

    def find(self, cluster_tag: str) -> DriftReport | None:
        return self.reports.get(cluster_tag)

    def forget_cluster(self, cluster_tag: str) -> None:
        self.reports.pop(cluster_tag, None)
