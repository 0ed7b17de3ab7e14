"""Operations: start, observe, resume and cancel workflows; advance them from inside a workflow.

`start` is the only place a workflow is started, with the input `inputs.workflow_input` builds. Every
write is conditional on the record's version, so two writers can never both advance an operation; the
workflow's steps are the only writers besides resume and cancel. An operation is bound to the cluster incarnation
it was created for (`incarnation`): resume, cancel and each step refuse it once the cluster is gone or another.

The cluster's lock (its one active operation) is taken by each attempt (the start, each resume) before the
operation record is written, released on every path where that attempt then fails to start, and released when
the operation ends; a release names the attempt, so it never frees another attempt's lock. A lock left behind
(its operation ended, or was never recorded) is stale: the next attempt clears it and says so in the audit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from controlplane.core.auth import Actor
from controlplane.core.naming import execution_name
from controlplane.core.operations import transitions
from controlplane.core.operations.incarnation import require_current
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.paging import Page
from controlplane.core.polling import LongPoll
from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.metrics import OperationMetrics
from controlplane.core.ports.persistence import (
    AuditLog,
    Clock,
    ClusterLock,
    ClusterRegistry,
    OperationRepository,
    WorkflowLauncher,
)
from controlplane.models.audit import AuditEntry
from controlplane.models.clusters import ClusterRecord, ClusterStatus
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.errors import (
    ClusterBusyError,
    OperationNotFoundError,
    OperationStateError,
    StaleVersionError,
    WorkflowStartRefusedError,
)
from controlplane.models.operations import (
    Operation,
    OperationError,
    OperationKind,
    OperationStatus,
)

WRITE_ATTEMPTS = 5
# How long a lock may wait for its attempt to be recorded before it counts as left behind by a crashed start.
LOCK_RECORD_GRACE = timedelta(minutes=2)
RECOVER_LOCK_ACTION = "recover-cluster-lock"


class OperationService:
    def __init__(
        self,
        operations: OperationRepository,
        registry: ClusterRegistry,
        launcher: WorkflowLauncher,
        account: AccountGateway,
        clock: Clock,
        audit: AuditLog,
        finished: Callable[[Operation], None],
        wait_poll_seconds: float = 0.5,
        metrics: OperationMetrics | None = None,
    ) -> None:
        """`finished` brings the cluster registry in line with an operation that is ending (its workflow's last
        step, a cancel, a workflow that could not start) and releases its lock (`ClusterService.record_outcome`).
        `wait_poll_seconds`: how often `wait` re-reads the operation. `metrics` hears of every transition written."""
        self._operations = operations
        self._registry = registry
        self._launcher = launcher
        self._account = account
        self._clock = clock
        self._audit = audit
        self._finished = finished
        self._wait_poll_seconds = wait_poll_seconds
        self._metrics = metrics

    # --- callers -----------------------------------------------------------------------------

    def start(
        self,
        record: ClusterRecord,
        actor: Actor,
        kind: OperationKind,
        *,
        stages: Sequence[str] | None = None,
        destructive: bool = False,
        **own: Any,
    ) -> Operation:
        """Record a PENDING operation on the cluster (bound to its incarnation), take its lock and start the workflow
        of `kind`, whose input is the record's facts plus `own` (the kind's plans). `stages` narrows the stages to
        those this run executes. `destructive`: started with a plan's confirmation token, so is its resume."""
        operation = transitions.new_operation(
            kind,
            record.clusterTag,
            record.incarnation,
            actor.principal,
            self._clock.now(),
            stages,
            destructive=destructive,
        )
        account = record.accountId or self._account.account_id()
        payload = workflow_input(kind, operation.operationId, record, account, **own)
        operation = operation.model_copy(update={"input": payload.model_dump(mode="json", exclude_none=True)})
        self._lock(record.clusterTag, operation.operationId, operation.attempt, actor)
        try:
            self._operations.create(operation)
        except BaseException:
            self._registry.release(record.clusterTag, operation.operationId, operation.attempt)
            raise
        return self._launch(operation)

    def get(self, operation_id: str) -> Operation:
        operation = self._operations.find(operation_id)
        if operation is None:
            raise OperationNotFoundError(
                f"Operation {operation_id} does not exist; list a cluster's operations with "
                "GET /operations?clusterTag=<tag>.",
            )
        return operation

    def list_for_cluster(
        self, cluster_tag: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None
    ) -> Page[Operation]:
        """A page of the cluster's operations, newest first."""
        return self._operations.list_for_cluster(cluster_tag, limit, token)

    def wait(self, operation_id: str, timeout_seconds: float) -> Operation:
        """Return as soon as the operation is terminal, or after the timeout with its current state."""
        poll = LongPoll(self._clock, self._wait_poll_seconds)
        return poll.until(lambda: self.get(operation_id), lambda operation: operation.status.terminal, timeout_seconds)

    def cluster_of(self, operation: Operation) -> ClusterRecord:
        """The record of the cluster incarnation the operation was created for; StaleOperationError once the
        cluster is gone or another incarnation."""
        return require_current(
            operation.operationId, operation.target, operation.incarnation, self._registry.find(operation.target)
        )

    def resume(self, operation_id: str, actor: Actor) -> Operation:
        """Run a FAILED or CANCELLED operation's workflow again, on its own cluster incarnation only; finished steps
        pass through. The checks of its kind and its confirmation are the caller's (`core.resumption`)."""
        operation = self.get(operation_id)
        now = self._clock.now()
        resumed = transitions.rerun(operation, actor.principal, now)
        record = self.cluster_of(operation)
        self._lock(operation.target, operation_id, resumed.attempt, actor)
        try:
            resumed = self._operations.replace(resumed, operation.version)
        except BaseException:
            self._registry.release(operation.target, operation_id, resumed.attempt)
            raise
        if operation.kind == OperationKind.DELETE_EKS_CLUSTER:
            # Deleting again, as its start marked it: what skips clusters being deleted (a Region's event forwarding
            # kept for its other clusters) skips this one, not only those whose delete never failed.
            self._registry.save(record.model_copy(update={"status": ClusterStatus.DELETING, "updatedAt": now}))
        return self._launch(resumed)

    def cancel(self, operation_id: str, actor: Actor) -> Operation:
        """Stop a PENDING or RUNNING operation of the cluster incarnation it was created for; finished stages are
        kept."""
        operation = self.get(operation_id)
        if operation.status.terminal:
            raise OperationStateError(
                f"Operation {operation_id} is already {operation.status}; nothing to cancel.",
                {"status": operation.status},
            )
        self.cluster_of(operation)
        if operation.executionArn:
            self._launcher.stop(operation.executionArn, f"Cancelled by {actor.principal}")
        return self._end(operation_id, OperationStatus.CANCELLED)

    # --- the workflow ------------------------------------------------------------------------

    def begin_step(self, operation_id: str, step: str, incarnation: str) -> Operation:
        """Mark the step's stage RUNNING (finishing earlier stages) and record the step being run, once the cluster is
        still the incarnation the workflow's input names (else StaleOperationError: the step does not run)."""
        target = self.get(operation_id).target
        require_current(operation_id, target, incarnation, self._registry.find(target))
        return self._update(operation_id, lambda op: transitions.begin_step(op, step, self._clock.now()))

    def note_phase(self, operation_id: str, step: str, message: str) -> Operation:
        """Persist the phase of the step's stage (e.g. before its polling starts)."""
        return self._update(operation_id, lambda op: transitions.note_phase(op, step, message, self._clock.now()))

    def succeed(self, operation_id: str) -> Operation:
        return self._end(operation_id, OperationStatus.SUCCEEDED)

    def fail(self, operation_id: str, error: OperationError) -> Operation:
        return self._end(operation_id, OperationStatus.FAILED, error)

    def fail_execution(self, operation_id: str, execution_arn: str, error: Mapping[str, Any]) -> Operation:
        """Record a workflow's caught error, naming the state that failed (from the execution history)."""
        step = self._launcher.failed_state(execution_arn) or self.get(operation_id).currentStep or "an unknown step"
        code = str(error.get("Error") or "States.TaskFailed")
        cause = str(error.get("Cause") or "")
        try:
            detail = str(json.loads(cause).get("errorMessage", cause))
        except (ValueError, AttributeError):
            detail = cause
        return self.fail(operation_id, OperationError(code=code, message=f"Step '{step}' failed: {detail}", step=step))

    # --- internals ---------------------------------------------------------------------------

    def _launch(self, operation: Operation) -> Operation:
        try:
            arn = self._launcher.start(
                operation.kind, execution_name(operation.operationId, operation.attempt), operation.input
            )
        except Exception as error:
            self.fail(operation.operationId, OperationError(code="WorkflowStartFailed", message=str(error)))
            if isinstance(error, WorkflowStartRefusedError):
                raise WorkflowStartRefusedError(
                    f"{error.message} Operation {operation.operationId} is recorded FAILED and none of it ran; resume "
                    f"it (POST /operations/{operation.operationId}/resume) in {error.retry_after} s.",
                    {**error.details, "operationId": operation.operationId},
                ) from error
            raise
        return self._update(
            operation.operationId,
            lambda op: op.model_copy(update={"executionArn": arn, "updatedAt": self._clock.now()}),
        )

    def _lock(self, cluster_tag: str, operation_id: str, attempt: int, actor: Actor) -> None:
        """Take the cluster's lock for this attempt, clearing a stale one (and auditing that); ClusterBusyError if
        a live attempt holds it."""
        now = self._clock.now()
        lock = ClusterLock(operation_id, attempt, now)
        try:
            self._registry.acquire(cluster_tag, lock)
            return
        except ClusterBusyError:
            held = self._registry.holder(cluster_tag)
            reason = self._stale(held, now) if held is not None else "released meanwhile"
            if reason is None:
                raise
        self._registry.acquire(cluster_tag, lock, replacing=held)
        if held is not None:
            self._audit.record(
                AuditEntry(
                    target=cluster_tag,
                    at=now,
                    actor=actor.via or actor.principal,
                    onBehalfOf=actor.principal if actor.via else None,
                    role=actor.role.name.lower(),
                    action=RECOVER_LOCK_ACTION,
                    operationId=held.operation_id,
                    requestId=actor.request_id or f"{operation_id}-{attempt}",
                    outcome=f"cleared the lock of {held.operation_id} (attempt {held.attempt}): {reason}; "
                    f"now held by {operation_id} (attempt {attempt})",
                )
            )

    def _stale(self, held: ClusterLock, now: datetime) -> str | None:
        """Why the lock no longer guards a live attempt, or None while it may."""
        operation = self._operations.find(held.operation_id)
        if operation is not None and operation.attempt > held.attempt:
            return f"its operation is on attempt {operation.attempt} since"
        if operation is not None and operation.attempt == held.attempt:
            return f"its operation is {operation.status.value}" if operation.status.terminal else None
        if now - held.acquired_at <= LOCK_RECORD_GRACE:
            return None  # the attempt that took it may still be writing its record
        return "its operation was never recorded" if operation is None else "its attempt was never recorded"

    def _end(self, operation_id: str, status: OperationStatus, error: OperationError | None = None) -> Operation:
        """End the operation: the registry and the cluster lock first, then the terminal status, so that whoever
        sees the operation ended finds the cluster free for the next one. Retrying after a failed write redoes
        both (each is idempotent); an operation already ended is left as it is."""
        now = self._clock.now()
        current = self.get(operation_id)
        ended = transitions.finish(current, status, now, error)
        if ended is None:
            return current
        self._finished(ended)
        return self._update(operation_id, lambda op: transitions.finish(op, status, now, error))

    def _update(self, operation_id: str, mutate: Callable[[Operation], Operation | None]) -> Operation:
        """Read, mutate, write conditionally; re-read and retry if another writer got there first."""
        for _ in range(WRITE_ATTEMPTS):
            operation = self.get(operation_id)
            changed = mutate(operation)
            if changed is None:
                return operation
            try:
                written = self._operations.replace(changed, operation.version)
            except StaleVersionError:
                continue
            if self._metrics is not None:
                self._metrics.transition(operation, written)
            return written
        raise StaleVersionError(f"Operation {operation_id} kept changing; try again.")
