"""The control plane's own state: operations, the cluster registry (its lock and the VPC CIDRs it reserves), audit,
confirmations, the last values of recipes, the last drift report of each cluster, workflows, time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from controlplane.core.paging import Page
from controlplane.models.audit import AuditEntry
from controlplane.models.clusters import ClusterRecord
from controlplane.models.drift import DriftReport
from controlplane.models.operations import Operation, OperationKind


class OperationRepository(Protocol):
    def create(self, operation: Operation) -> None:
        """Insert; raises StaleVersionError if the id exists."""

    def find(self, operation_id: str) -> Operation | None: ...

    def replace(self, operation: Operation, expected_version: int) -> Operation:
        """Write `operation` with version+1 only if the stored version is `expected_version`."""

    def list_for_cluster(self, cluster_tag: str, limit: int, token: str | None = None) -> Page[Operation]:
        """A cluster's operations, newest first, `limit` at a time from `token` (None: the newest)."""


@dataclass(frozen=True)
class ClusterLock:
    """The cluster's one active operation: which attempt of it holds the lock, and since when. Each attempt (a
    start, each resume) takes its own lock and releases only that one."""

    operation_id: str
    attempt: int
    acquired_at: datetime


class ClusterRegistry(Protocol):
    def find(self, cluster_tag: str) -> ClusterRecord | None: ...

    def list(self) -> list[ClusterRecord]: ...

    def page(self, limit: int, token: str | None = None) -> Page[ClusterRecord]:
        """Records by cluster tag, `limit` at a time from `token` (None: the first)."""

    def create(self, record: ClusterRecord) -> None:
        """Insert; raises ClusterExistsError if the tag is taken."""

    def save(self, record: ClusterRecord) -> None: ...

    def acquire(self, cluster_tag: str, lock: ClusterLock, replacing: ClusterLock | None = None) -> None:
        """Take the cluster's lock if it is free, or still exactly `replacing` (a stale lock being recovered);
        ClusterBusyError naming the holder otherwise."""

    def holder(self, cluster_tag: str) -> ClusterLock | None:
        """The lock on the cluster, if any."""

    def release(self, cluster_tag: str, operation_id: str, attempt: int) -> None:
        """Clear the lock if this attempt of the operation holds it (no-op otherwise)."""

    def reserved_cidrs(self, region: str) -> dict[str, str]:
        """The VPC CIDRs reserved in the Region, each with the cluster it is reserved for."""

    def reserve_cidr(self, region: str, cidr: str, cluster_tag: str) -> bool:
        """Reserve the CIDR for the cluster (one conditional write); False if it is reserved already."""

    def release_cidr(self, region: str, cidr: str, cluster_tag: str) -> None:
        """Drop the cluster's reservation of the CIDR (no-op if it holds none)."""

    def delete(self, cluster_tag: str) -> None: ...


@dataclass(frozen=True)
class AuditQuery:
    """Which audit entries to read: each filter given must match (None: any)."""

    cluster_tag: str | None = None
    # The authenticated caller or the user the MCP server acted for.
    actor: str | None = None
    operation_id: str | None = None

    def matches(self, entry: AuditEntry) -> bool:
        return (
            (self.cluster_tag is None or entry.target == self.cluster_tag)
            and (self.actor is None or self.actor in (entry.actor, entry.onBehalfOf))
            and (self.operation_id is None or entry.operationId == self.operation_id)
        )


class AuditLog(Protocol):
    def record(self, entry: AuditEntry) -> None: ...

    def page(self, query: AuditQuery, limit: int, token: str | None = None) -> Page[AuditEntry]:
        """The entries `query` matches, newest first, `limit` at a time from `token` (None: the newest)."""


@dataclass(frozen=True)
class Confirmation:
    """A single-use token for one caller, action and target, bound to the `fingerprint` of the state it was
    planned against (what the action would change), until `expires_at`."""

    token: str
    principal: str
    action: str
    target: str
    fingerprint: str
    expires_at: datetime


class ConfirmationStore(Protocol):
    def put(self, confirmation: Confirmation) -> None: ...

    def take(
        self, token: str, principal: str, action: str, target: str, fingerprint: str, now: datetime
    ) -> Confirmation | None:
        """Remove and return the token only if it is stored for exactly this caller, action, target and fingerprint
        and unexpired at `now`; None otherwise, and a token that did not match stays for its owner."""


class WorkflowLauncher(Protocol):
    def start(self, kind: OperationKind, execution_name: str, payload: Mapping[str, Any]) -> str:
        """Start the workflow; same name and payload returns the existing execution's ARN."""

    def stop(self, execution_arn: str, cause: str) -> None: ...

    def failed_state(self, execution_arn: str) -> str | None:
        """The name of the state whose task failed last in the execution."""


class Clock(Protocol):
    def now(self) -> datetime: ...

    def sleep(self, seconds: float) -> None: ...


class RecipeValuesStore(Protocol):
    """The values each caller last submitted each recipe with."""

    def get(self, principal: str, recipe: str) -> dict[str, Any] | None: ...

    def put(self, principal: str, recipe: str, values: Mapping[str, Any]) -> None: ...


class KeptBesideCluster(Protocol):
    """Records kept beside a cluster's (its drift report, its remediation policy): forgotten with the cluster, so one
    created again under its tag starts without them."""

    def forget_cluster(self, cluster_tag: str) -> None: ...


class DriftReportStore(KeptBesideCluster, Protocol):
    """The last reconcile of each cluster."""

    def put(self, report: DriftReport) -> None: ...

    def find(self, cluster_tag: str) -> DriftReport | None: ...
