"""The steps table: every context's declared steps, collected by Task name. `handler.py` dispatches on it; nothing
else runs steps.

Names line up across layers: the Task "Create EKS Cluster" ⇄ its declaration (in `steps.eks`) ⇄
`${CreateEksClusterFunctionArn}` in the ASL ⇄ `EksStackService.create_eks_cluster`. The table is checked on import
against the workflow declarations: a Task that no context declares, a step that no workflow runs, or a name declared
twice fails every entry point that loads the steps (the handler, the stack, the sandbox) before anything runs.
"""

from __future__ import annotations

from collections.abc import Iterable

from controlplane.workflows.definitions import WORKFLOWS
from controlplane.workflows.spec import Workflow
from steps import (
    cluster_import,
    dependencies,
    downloads,
    eks,
    events,
    features,
    governance,
    hyperpod,
    instance_groups,
    network,
    nodes,
    operations,
    storage,
)
from steps.step import Step


class UnknownStepError(LookupError):
    """A Task named a step this table does not have."""


class UndeclaredStepError(LookupError):
    """The workflows and the declared steps disagree: a Task without a declaration, or a step no workflow runs."""


def collect(declared: Iterable[Step], workflows: Iterable[Workflow]) -> dict[str, Step]:
    """The steps by Task name, exactly those the workflows run."""
    steps: dict[str, Step] = {}
    for declaration in declared:
        if declaration.name in steps:
            raise UndeclaredStepError(f"Step {declaration.name!r} is declared twice.")
        steps[declaration.name] = declaration
    run = {name for workflow in workflows for name in workflow.steps()}
    if undeclared := sorted(run - steps.keys()):
        raise UndeclaredStepError(f"Tasks without a step declaration (add one in steps/): {', '.join(undeclared)}")
    if unused := sorted(steps.keys() - run):
        raise UndeclaredStepError(f"Declared steps that no workflow runs: {', '.join(unused)}")
    return steps


# In this order, each group lists its steps as its role's grants are ordered.
STEPS: dict[str, Step] = collect(
    (
        *network.STEPS,
        *eks.STEPS,
        *cluster_import.STEPS,
        *dependencies.STEPS,
        *hyperpod.STEPS,
        *instance_groups.STEPS,
        *nodes.STEPS,
        *storage.STEPS,
        *downloads.STEPS,
        *governance.STEPS,
        *events.STEPS,
        *features.STEPS,
        *operations.STEPS,
    ),
    WORKFLOWS.values(),
)


def step(name: str) -> Step:
    """The declaration of the Task `name`; an unknown name is an error that lists the known ones."""
    try:
        return STEPS[name]
    except KeyError:
        raise UnknownStepError(f"Unknown step {name!r}; the steps are: {', '.join(sorted(STEPS))}") from None
