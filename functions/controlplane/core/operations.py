"""Operations: start, observe, resume and cancel workflows; advance them from inside a workflow.

Every write is conditional on the record's version, so two writers can never both advance an
operation; the workflow's steps are the only writers besides resume and cancel.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controlplane.core.auth import Actor
from controlplane.core.naming import execution_name
from controlplane.core.ports.persistence import Clock, ClusterRegistry, OperationRepository, WorkflowLauncher
from controlplane.core.stages import stage_names, stage_of
from controlplane.models.errors import (
    OperationNotFoundError,
    OperationStateError,
    StaleVersionError,
)
from controlplane.models.operations import (
    Operation,
    OperationError,
    OperationKind,
    OperationStatus,
    Stage,
    StageStatus,
)

MAX_WAIT_SECONDS = 25
WAIT_POLL_SECONDS = 0.5
WRITE_ATTEMPTS = 5


def new_operation_id() -> str:
    return f"op-{uuid.uuid4().hex[:20]}"


class OperationService:
    def __init__(
        self,
        operations: OperationRepository,
        registry: ClusterRegistry,
        launcher: WorkflowLauncher,
        clock: Clock,
    ) -> None:
        self._operations = operations
        self._registry = registry
        self._launcher = launcher
        self._clock = clock

    # --- callers -----------------------------------------------------------------------------

    def start(
        self,
        kind: OperationKind,
        cluster_tag: str,
        actor: Actor,
        payload: Callable[[str], Mapping[str, Any]],
        stages: Sequence[str] | None = None,
    ) -> Operation:
        """Record a PENDING operation, take the cluster's lock and start its workflow.

        `stages` narrows the workflow's stages to those this run executes (in execution order), for
        workflows whose Choice states skip the others.
        """
        names = list(stages) if stages is not None else stage_names(kind)
        unknown = set(names) - set(stage_names(kind))
        if unknown or not names:
            raise OperationStateError(f"Stages {sorted(unknown) or names} are not stages of a {kind.value} workflow.")
        now = self._clock.now()
        operation = Operation(
            operationId=new_operation_id(),
            kind=kind,
            target=cluster_tag,
            stages=[Stage(name=name) for name in names],
            actor=actor.principal,
            createdAt=now,
            updatedAt=now,
        )
        operation = operation.model_copy(update={"input": dict(payload(operation.operationId))})
        self._registry.acquire(cluster_tag, operation.operationId, now)
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
            self._clock.sleep(WAIT_POLL_SECONDS)
            operation = self.get(operation_id)
        return operation

    def resume(self, operation_id: str, actor: Actor) -> Operation:
        """Run a FAILED or CANCELLED operation's workflow again; finished steps pass through."""
        operation = self.get(operation_id)
        if operation.status not in (OperationStatus.FAILED, OperationStatus.CANCELLED):
            raise OperationStateError(
                f"Operation {operation_id} is {operation.status}; only FAILED or CANCELLED operations can be resumed.",
                {"status": operation.status},
            )
        now = self._clock.now()
        self._registry.acquire(operation.target, operation_id, now)
        stages = [
            stage if stage.status == StageStatus.SUCCEEDED else Stage(name=stage.name) for stage in operation.stages
        ]
        resumed = operation.model_copy(
            update={
                "status": OperationStatus.PENDING,
                "stages": stages,
                "error": None,
                "currentStep": None,
                "attempt": operation.attempt + 1,
                "updatedAt": now,
                "actor": actor.principal,
            }
        )
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
        cancelled = self._update(operation_id, lambda op: _finish(op, OperationStatus.CANCELLED, self._clock))
        self._registry.release(cancelled.target, operation_id, self._clock.now())
        return cancelled

    # --- the workflow ------------------------------------------------------------------------

    def begin_step(self, operation_id: str, step: str) -> Operation:
        """Mark the step's stage RUNNING (finishing earlier stages) and record the step being run."""

        def mutate(operation: Operation) -> Operation | None:
            if operation.status.terminal:
                raise OperationStateError(f"Operation {operation_id} is {operation.status}; step {step} stops.")
            if operation.status == OperationStatus.RUNNING and operation.currentStep == step:
                return None
            now = self._clock.now()
            names = [s.name for s in operation.stages]
            position = names.index(_stage(operation, step))
            stages = []
            for index, current in enumerate(operation.stages):
                if index < position and current.status in (StageStatus.PENDING, StageStatus.RUNNING):
                    current = current.model_copy(
                        update={"status": StageStatus.SUCCEEDED, "startedAt": current.startedAt or now, "endedAt": now}
                    )
                elif index == position and current.status != StageStatus.RUNNING:
                    current = current.model_copy(
                        update={"status": StageStatus.RUNNING, "startedAt": now, "endedAt": None, "message": None}
                    )
                stages.append(current)
            return operation.model_copy(
                update={"status": OperationStatus.RUNNING, "stages": stages, "currentStep": step, "updatedAt": now}
            )

        return self._update(operation_id, mutate)

    def note_phase(self, operation_id: str, step: str, message: str) -> Operation:
        """Persist the phase of the step's stage (e.g. before its polling starts)."""

        def mutate(operation: Operation) -> Operation | None:
            stage = _stage(operation, step)
            current = operation.stage(stage)
            if current.message == message:
                return None
            stages = [s.model_copy(update={"message": message}) if s.name == stage else s for s in operation.stages]
            return operation.model_copy(update={"stages": stages, "updatedAt": self._clock.now()})

        return self._update(operation_id, mutate)

    def succeed(self, operation_id: str) -> Operation:
        return self._update(operation_id, lambda op: _finish(op, OperationStatus.SUCCEEDED, self._clock))

    def fail(self, operation_id: str, error: OperationError) -> Operation:
        return self._update(operation_id, lambda op: _finish(op, OperationStatus.FAILED, self._clock, error))

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


def _stage(operation: Operation, step: str) -> str:
    stage = stage_of(operation.kind, step)
    if stage is None:
        raise OperationStateError(f"Step {step} is not part of a {operation.kind.value} workflow.")
    return stage


def _finish(
    operation: Operation, status: OperationStatus, clock: Clock, error: OperationError | None = None
) -> Operation | None:
    if operation.status.terminal:
        return None
    now = clock.now()
    stage_outcome = {
        OperationStatus.SUCCEEDED: StageStatus.SUCCEEDED,
        OperationStatus.FAILED: StageStatus.FAILED,
        OperationStatus.CANCELLED: StageStatus.CANCELLED,
    }[status]
    failed_stage = stage_of(operation.kind, error.step) if error is not None and error.step else None
    stages = []
    for stage in operation.stages:
        if failed_stage is not None and stage.status == StageStatus.RUNNING and stage.name != failed_stage:
            # The failed step belongs to a later stage: this one had finished.
            stage = stage.model_copy(update={"status": StageStatus.SUCCEEDED, "endedAt": now})
        elif (
            stage.name == failed_stage
            or (failed_stage is None and stage.status == StageStatus.RUNNING)
            or (status == OperationStatus.SUCCEEDED and stage.status == StageStatus.PENDING)
        ):
            message = error.message if error is not None else stage.message
            stage = stage.model_copy(
                update={
                    "status": stage_outcome,
                    "startedAt": stage.startedAt or now,
                    "endedAt": now,
                    "message": message,
                }
            )
        stages.append(stage)
    return operation.model_copy(update={"status": status, "stages": stages, "error": error, "updatedAt": now})
