"""Operations: start, observe, resume and cancel workflows; advance them from inside a workflow.

`start` is the only place a workflow is started, with the input `inputs.workflow_input` builds. Every
write is conditional on the record's version, so two writers can never both advance an operation; the
workflow's steps are the only writers besides resume and cancel. The cluster's lock (its one active
operation) is taken on start and resume and released when the operation ends.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controlplane.core.auth import Actor
from controlplane.core.naming import execution_name
from controlplane.core.operations import transitions
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.persistence import Clock, ClusterRegistry, OperationRepository, WorkflowLauncher
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import OperationNotFoundError, OperationStateError, StaleVersionError
from controlplane.models.operations import Operation, OperationError, OperationKind, OperationStatus

MAX_WAIT_SECONDS = 25
WRITE_ATTEMPTS = 5


class OperationService:
    def __init__(
        self,
        operations: OperationRepository,
        registry: ClusterRegistry,
        launcher: WorkflowLauncher,
        account: AccountGateway,
        clock: Clock,
        wait_poll_seconds: float,
    ) -> None:
        """`wait_poll_seconds`: how often `wait` re-reads the operation."""
        self._operations = operations
        self._registry = registry
        self._launcher = launcher
        self._account = account
        self._clock = clock
        self._wait_poll_seconds = wait_poll_seconds

    # --- callers -----------------------------------------------------------------------------

    def start(
        self,
        record: ClusterRecord,
        actor: Actor,
        kind: OperationKind,
        *,
        stages: Sequence[str] | None = None,
        **own: Any,
    ) -> Operation:
        """Record a PENDING operation on the cluster, take its lock and start the workflow of `kind`, whose
        input is the record's facts plus `own` (the kind's plans). `stages` narrows the stages to those
        this run executes."""
        operation = transitions.new_operation(kind, record.clusterTag, actor.principal, self._clock.now(), stages)
        account = record.accountId or self._account.account_id()
        payload = workflow_input(kind, operation.operationId, record, account, **own)
        operation = operation.model_copy(update={"input": payload.model_dump(mode="json", exclude_none=True)})
        self._registry.acquire(record.clusterTag, operation.operationId, operation.createdAt)
        self._operations.create(operation)
        return self._launch(operation)

    def get(self, operation_id: str) -> Operation:
        operation = self._operations.find(operation_id)
        if operation is None:
            raise OperationNotFoundError(
                f"Operation {operation_id} does not exist; list a cluster's operations with "
                "GET /operations?clusterTag=<tag>.",
            )
        return operation

    def list_for_cluster(self, cluster_tag: str, limit: int = 50) -> list[Operation]:
        return self._operations.list_for_cluster(cluster_tag, limit)

    def wait(self, operation_id: str, timeout_seconds: float) -> Operation:
        """Return as soon as the operation is terminal, or after the timeout with its current state."""
        deadline = self._clock.now().timestamp() + min(timeout_seconds, MAX_WAIT_SECONDS)
        operation = self.get(operation_id)
        while not operation.status.terminal and self._clock.now().timestamp() < deadline:
            self._clock.sleep(self._wait_poll_seconds)
            operation = self.get(operation_id)
        return operation

    def resume(self, operation_id: str, actor: Actor) -> Operation:
        """Run a FAILED or CANCELLED operation's workflow again; finished steps pass through."""
        operation = self.get(operation_id)
        now = self._clock.now()
        resumed = transitions.rerun(operation, actor.principal, now)
        self._registry.acquire(operation.target, operation_id, now)
        try:
            resumed = self._operations.replace(resumed, operation.version)
        except StaleVersionError:
            self._registry.release(operation.target, operation_id, now)
            raise
        return self._launch(resumed)

    def cancel(self, operation_id: str, actor: Actor) -> Operation:
        """Stop a PENDING or RUNNING operation; finished stages are kept."""
        operation = self.get(operation_id)
        if operation.status.terminal:
            raise OperationStateError(
                f"Operation {operation_id} is already {operation.status}; nothing to cancel.",
                {"status": operation.status},
            )
        if operation.executionArn:
            self._launcher.stop(operation.executionArn, f"Cancelled by {actor.principal}")
        cancelled = self._update(
            operation_id, lambda op: transitions.finish(op, OperationStatus.CANCELLED, self._clock.now())
        )
        self._registry.release(cancelled.target, operation_id, self._clock.now())
        return cancelled

    # --- the workflow ------------------------------------------------------------------------

    def begin_step(self, operation_id: str, step: str) -> Operation:
        """Mark the step's stage RUNNING (finishing earlier stages) and record the step being run."""
        return self._update(operation_id, lambda op: transitions.begin_step(op, step, self._clock.now()))

    def note_phase(self, operation_id: str, step: str, message: str) -> Operation:
        """Persist the phase of the step's stage (e.g. before its polling starts)."""
        return self._update(operation_id, lambda op: transitions.note_phase(op, step, message, self._clock.now()))

    def succeed(self, operation_id: str) -> Operation:
        return self._update(
            operation_id, lambda op: transitions.finish(op, OperationStatus.SUCCEEDED, self._clock.now())
        )

    def fail(self, operation_id: str, error: OperationError) -> Operation:
        return self._update(
            operation_id, lambda op: transitions.finish(op, OperationStatus.FAILED, self._clock.now(), error)
        )

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
            self._registry.release(operation.target, operation.operationId, self._clock.now())
            raise
        return self._update(
            operation.operationId,
            lambda op: op.model_copy(update={"executionArn": arn, "updatedAt": self._clock.now()}),
        )

    def _update(self, operation_id: str, mutate: Callable[[Operation], Operation | None]) -> Operation:
        """Read, mutate, write conditionally; re-read and retry if another writer got there first."""
        for _ in range(WRITE_ATTEMPTS):
            operation = self.get(operation_id)
            changed = mutate(operation)
            if changed is None:
                return operation
            try:
                return self._operations.replace(changed, operation.version)
            except StaleVersionError:
                continue
        raise StaleVersionError(f"Operation {operation_id} kept changing; try again.")
