"""Resuming an operation as callers ask for it: only on the cluster incarnation it was created for, only after the
checks a new request of its kind runs (stage order, pre-flight, what it acts on still being there), and, for an
operation whose start needed a plan's confirmation token, only with a fresh plan's token.

The checks are the contexts' own: each service that starts operations rechecks the kinds it starts (`Resumable`),
and every kind has exactly one, or nothing can be resumed (checked when the service is built). Running the workflow
again is `OperationService.resume`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations, fingerprint
from controlplane.core.operations import transitions
from controlplane.core.operations.service import OperationService
from controlplane.models.clusters import ClusterRecord, Plan
from controlplane.models.operations import Operation, OperationKind, StageStatus

RESUME_ACTION = "resume-operation"


class Resumable(Protocol):
    """A service that starts operations of the kinds it `resumes`, and rechecks one of them before it is resumed."""

    @property
    def resumes(self) -> frozenset[OperationKind]: ...

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """The checks a new request of the operation's kind runs, against the cluster as it is now (raising as that
        request would); the plan lists what a destructive operation would still destroy."""
        ...


class ResumeService:
    def __init__(self, operations: OperationService, confirmations: Confirmations, services: Iterable[Resumable]):
        self._operations = operations
        self._confirmations = confirmations
        self._rechecks: dict[OperationKind, Resumable] = {}
        for service in services:
            for kind in service.resumes:
                if kind in self._rechecks:
                    raise ValueError(f"Operations of kind {kind.value} are rechecked by two services.")
                self._rechecks[kind] = service
        if missing := sorted(kind.value for kind in set(OperationKind) - self._rechecks.keys()):
            raise ValueError(f"No service rechecks operations of kind {', '.join(missing)} before a resume.")

    def plan(self, operation_id: str, actor: Actor) -> Plan:
        """What resuming would do, after every check; a destructive operation's plan carries a single-use token."""
        operation, plan = self._checked(operation_id)
        if not operation.destructive:
            return plan
        token, expires_at = self._confirmations.issue(
            actor, RESUME_ACTION, _target(operation), fingerprint(plan.actions)
        )
        message = (
            f"{plan.message} It deletes, terminates or restarts what the actions list, as its start did: ask the "
            "person to confirm, then repeat the resume with confirmationToken."
        )
        return plan.model_copy(update={"confirmationToken": token, "expiresAt": expires_at, "message": message})

    def resume(self, operation_id: str, token: str | None, actor: Actor) -> Operation | Plan:
        """Run the operation's workflow again after every check; a destructive one only with the token of its
        resume plan (without one, the plan)."""
        operation, plan = self._checked(operation_id)
        if not operation.destructive:
            return self._operations.resume(operation_id, actor)
        if not token:
            return self.plan(operation_id, actor)
        with self._confirmations.redeeming(
            token,
            actor,
            RESUME_ACTION,
            _target(operation),
            f"Call POST /operations/{operation_id}/resume without a token",
            fingerprint(plan.actions),
        ):
            return self._operations.resume(operation_id, actor)

    def _checked(self, operation_id: str) -> tuple[Operation, Plan]:
        operation = self._operations.get(operation_id)
        transitions.require_resumable(operation)
        record = self._operations.cluster_of(operation)
        plan = self._rechecks[operation.kind].recheck(record, operation)
        left = [stage.name for stage in operation.stages if stage.status != StageStatus.SUCCEEDED]
        message = (
            f"Resuming {operation_id} ({operation.kind.value}) runs its unfinished stages again: {', '.join(left)}."
        )
        return operation, plan.model_copy(update={"dryRun": True, "message": message})


def _target(operation: Operation) -> str:
    """A resume token confirms one attempt: a plan made before another resume needs to be made again."""
    return f"{operation.operationId}#{operation.attempt}"
