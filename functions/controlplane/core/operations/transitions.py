"""How an operation and its stages move: PENDING → RUNNING → SUCCEEDED | FAILED | CANCELLED, and back to
PENDING on resume. Pure functions of an operation and the time; the service reads, applies and writes them.

Each run of the workflow (the start, each resume) is an attempt: `stages` is the operation's whole picture (a stage
an earlier attempt finished keeps its times while a resume passes through it), and the latest of `attempts` records
what this run did (its stages, its last step, its outcome), so a resume never erases the attempt before it.

A function returns None when the operation is already where the transition would take it, so that the
service writes nothing (steps are retried and re-run on resume).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from controlplane.core.stages import stage_names, stage_of
from controlplane.models.errors import OperationStateError
from controlplane.models.operations import (
    MAX_ATTEMPTS_KEPT,
    Attempt,
    Operation,
    OperationError,
    OperationKind,
    OperationStatus,
    Stage,
    StageStatus,
)

STAGE_OUTCOME = {
    OperationStatus.SUCCEEDED: StageStatus.SUCCEEDED,
    OperationStatus.FAILED: StageStatus.FAILED,
    OperationStatus.CANCELLED: StageStatus.CANCELLED,
}


def new_operation(
    kind: OperationKind,
    cluster_tag: str,
    incarnation: str,
    principal: str,
    now: datetime,
    stages: Sequence[str] | None = None,
    *,
    destructive: bool = False,
) -> Operation:
    """A PENDING operation on the cluster incarnation `incarnation`, with the workflow's stages; `stages` narrows
    them to those this run executes (in execution order), for workflows whose Choice states skip the others."""
    names = list(stages) if stages is not None else stage_names(kind)
    unknown = set(names) - set(stage_names(kind))
    if unknown or not names:
        raise OperationStateError(f"Stages {sorted(unknown) or names} are not stages of a {kind.value} workflow.")
    return Operation(
        operationId=f"op-{uuid.uuid4().hex[:20]}",
        kind=kind,
        target=cluster_tag,
        incarnation=incarnation,
        destructive=destructive,
        stages=[Stage(name=name) for name in names],
        actor=principal,
        createdAt=now,
        updatedAt=now,
        attempts=[Attempt(number=1, actor=principal, startedAt=now)],
    )


def begin_step(operation: Operation, step: str, now: datetime) -> Operation | None:
    """The step's stage becomes RUNNING and earlier unfinished stages SUCCEEDED; a stage an earlier attempt finished
    stays as it was (its step passes through). A stopped operation stops its steps."""
    if operation.status.terminal:
        raise OperationStateError(f"Operation {operation.operationId} is {operation.status}; step {step} stops.")
    if operation.status == OperationStatus.RUNNING and operation.currentStep == step:
        return None
    position = [stage.name for stage in operation.stages].index(stage_of_step(operation, step))
    stages = []
    for index, current in enumerate(operation.stages):
        if index < position and current.status in (StageStatus.PENDING, StageStatus.RUNNING):
            current = current.model_copy(
                update={"status": StageStatus.SUCCEEDED, "startedAt": current.startedAt or now, "endedAt": now}
            )
        elif index == position and current.status not in (StageStatus.RUNNING, StageStatus.SUCCEEDED):
            current = current.model_copy(
                update={"status": StageStatus.RUNNING, "startedAt": now, "endedAt": None, "message": None}
            )
        stages.append(current)
    return _advanced(
        operation,
        stages,
        {"status": OperationStatus.RUNNING, "currentStep": step, "updatedAt": now},
        {"status": OperationStatus.RUNNING, "lastStep": step},
    )


def note_phase(operation: Operation, step: str, message: str, now: datetime) -> Operation | None:
    """The phase message of the step's stage (e.g. what it waits for)."""
    stage = stage_of_step(operation, step)
    if operation.stage(stage).message == message:
        return None
    stages = [s.model_copy(update={"message": message}) if s.name == stage else s for s in operation.stages]
    return _advanced(operation, stages, {"updatedAt": now}, {})


def finish(
    operation: Operation, status: OperationStatus, now: datetime, error: OperationError | None = None
) -> Operation | None:
    """A terminal status, which ends the attempt and leaves no current step. A failure fails the failed step's stage
    (a stage still RUNNING before it had finished); success finishes every stage; cancel cancels the running one.
    Finished stages stay."""
    if operation.status.terminal:
        return None
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
            stage = stage.model_copy(
                update={
                    "status": STAGE_OUTCOME[status],
                    "startedAt": stage.startedAt or now,
                    "endedAt": now,
                    "message": error.message if error is not None else stage.message,
                }
            )
        stages.append(stage)
    last_step = (error.step if error is not None else None) or operation.currentStep
    return _advanced(
        operation,
        stages,
        {"status": status, "error": error, "currentStep": None, "updatedAt": now},
        {"status": status, "error": error, "endedAt": now, **({"lastStep": last_step} if last_step else {})},
    )


def require_resumable(operation: Operation) -> None:
    """Only a FAILED or CANCELLED operation can be resumed."""
    if operation.status not in (OperationStatus.FAILED, OperationStatus.CANCELLED):
        raise OperationStateError(
            f"Operation {operation.operationId} is {operation.status}; only FAILED or CANCELLED operations can be "
            "resumed.",
            {"status": operation.status},
        )


def rerun(operation: Operation, principal: str, now: datetime) -> Operation:
    """A FAILED or CANCELLED operation made PENDING again for its next attempt, appended to its attempts (the
    earlier ones kept as they ended); succeeded stages stay."""
    require_resumable(operation)
    stages = [stage if stage.status == StageStatus.SUCCEEDED else Stage(name=stage.name) for stage in operation.stages]
    attempts = [*_attempts(operation), Attempt(number=operation.attempt + 1, actor=principal, startedAt=now)]
    if len(attempts) > MAX_ATTEMPTS_KEPT:
        attempts = [attempts[0], *attempts[1 - MAX_ATTEMPTS_KEPT :]]
    return operation.model_copy(
        update={
            "status": OperationStatus.PENDING,
            "stages": stages,
            "error": None,
            "currentStep": None,
            "attempt": operation.attempt + 1,
            "attempts": attempts,
            "updatedAt": now,
            "actor": principal,
        }
    )


def stage_of_step(operation: Operation, step: str) -> str:
    stage = stage_of(operation.kind, step)
    if stage is None:
        raise OperationStateError(f"Step {step} is not part of a {operation.kind.value} workflow.")
    return stage


def _advanced(
    operation: Operation, stages: list[Stage], update: dict[str, object], attempt_update: dict[str, object]
) -> Operation:
    """The operation with `stages` and `update`, its latest attempt with `attempt_update` and the stages it has
    changed (those it ran)."""
    *earlier, current = _attempts(operation)
    ran = {stage.name for stage in current.stages} | {
        new.name for old, new in zip(operation.stages, stages, strict=True) if new != old
    }
    current = current.model_copy(update={**attempt_update, "stages": [stage for stage in stages if stage.name in ran]})
    return operation.model_copy(update={**update, "stages": stages, "attempts": [*earlier, current]})


def _attempts(operation: Operation) -> list[Attempt]:
    """The operation's attempts; one standing for the current attempt of a record written before attempts were kept."""
    if operation.attempts:
        return list(operation.attempts)
    return [Attempt(number=operation.attempt, actor=operation.actor, startedAt=operation.createdAt)]
