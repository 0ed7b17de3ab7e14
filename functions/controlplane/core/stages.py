"""Each workflow's stages, in order, and the Task states (steps) that make up each stage.

This is what an operation reports. It is read from the workflow declarations (`controlplane.workflows`),
where every step is declared inside its stage; nothing here restates them.
"""

from __future__ import annotations

from controlplane.models.operations import OperationKind
from controlplane.workflows.definitions import WORKFLOWS

WORKFLOW_STAGES: dict[OperationKind, dict[str, tuple[str, ...]]] = {
    kind: workflow.stages() for kind, workflow in WORKFLOWS.items()
}


def stage_names(kind: OperationKind) -> list[str]:
    return list(WORKFLOW_STAGES[kind])


def stage_of(kind: OperationKind, step: str) -> str | None:
    for stage, steps in WORKFLOW_STAGES[kind].items():
        if step in steps:
            return stage
    return None
