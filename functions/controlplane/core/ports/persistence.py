"""The control plane's own state: operations, the cluster registry, audit, confirmations, workflows, time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from controlplane.core.paging import Page
from controlplane.models.audit import AuditEntry
from controlplane.models.clusters import ClusterRecord
from controlplane.models.operations import Operation, OperationKind


class OperationRepository(Protocol):
    def create(self, operation: Operation) -> None:
        """Insert; raises StaleVersionError if the id exists."""

    def find(self, operation_id: str) -> Operation | None: ...

    def replace(self, operation: Operation, expected_version: int) -> Operation:
        """Write `operation` with version+1 only if the stored version is `expected_version`."""

    def list_for_cluster(self, cluster_tag: str, limit: int, token: str | None = None) -> Page[Operation]:
        """A cluster's operations, newest first, `limit` at a time from `token` (None: the newest)."""


class ClusterRegistry(Protocol):
    def find(self, cluster_tag: str) -> ClusterRecord | None: ...

    def list(self) -> list[ClusterRecord]: ...

    def page(self, limit: int, token: str | None = None) -> Page[ClusterRecord]:
        """Records by cluster tag, `limit` at a time from `token` (None: the first)."""

    def create(self, record: ClusterRecord) -> None:
        """Insert; raises ClusterExistsError if the tag is taken."""

    def save(self, record: ClusterRecord) -> None: ...

    def acquire(self, cluster_tag: str, operation_id: str, now: datetime) -> None:
        """Mark `operation_id` as the cluster's one active operation; ClusterBusyError if another holds it."""

    def release(self, cluster_tag: str, operation_id: str, now: datetime) -> None:
        """Clear the active operation if it is `operation_id` (no-op otherwise)."""

    def delete(self, cluster_tag: str) -> None: ...


class AuditLog(Protocol):
    def record(self, entry: AuditEntry) -> None: ...


@dataclass(frozen=True)
class Confirmation:
    token: str
    principal: str
    action: str
    target: str
    expires_at: datetime


class ConfirmationStore(Protocol):
    def put(self, confirmation: Confirmation) -> None: ...

    def take(self, token: str) -> Confirmation | None:
        """Remove and return the confirmation (single use), or None if unknown."""


class WorkflowLauncher(Protocol):
    def start(self, kind: OperationKind, execution_name: str, payload: Mapping[str, Any]) -> str:
        """Start the workflow; same name and payload returns the existing execution's ARN."""

    def stop(self, execution_arn: str, cause: str) -> None: ...

    def failed_state(self, execution_arn: str) -> str | None:
        """The name of the state whose task failed last in the execution."""


class Clock(Protocol):
    def now(self) -> datetime: ...

    def sleep(self, seconds: float) -> None: ...
