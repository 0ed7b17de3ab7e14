"""The step functions' roles, collected from the steps' declarations (`steps.registry`): one role per group, holding
the union of its steps' grants and tables, each once, in the order the steps are declared. A group is trusted by the
Kubernetes access role when one of its steps assumes it."""

from __future__ import annotations

from controlplane.access.grant import FunctionAccess
from steps.registry import STEPS


def _groups() -> dict[str, tuple[str, ...]]:
    groups: dict[str, tuple[str, ...]] = {}
    for step in STEPS.values():
        groups[step.group.name] = (*groups.get(step.group.name, ()), step.key)
    return groups


# Each group → the keys of the steps it serves (`ensure_vpc`), in declaration order.
STEP_GROUPS = _groups()
_BY_KEY = {step.key: step for step in STEPS.values()}


def group_of(step: str) -> str:
    """The group whose function serves `step` (a step key)."""
    return _BY_KEY[step].group.name


def group_access(group: str) -> FunctionAccess:
    """The union of the group's steps' access."""
    return FunctionAccess.union(_BY_KEY[step].access for step in STEP_GROUPS[group])
