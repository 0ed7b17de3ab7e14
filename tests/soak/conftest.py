"""The soak takes minutes of both cores, so it is opt-in: `make soak` runs it (`SOAK=1`); `make test` does not, and a
bare `pytest` collects it as skipped with a reason that says how to run it."""

from __future__ import annotations

import os

import pytest

HOW_TO_RUN = (
    "soak (20 pipelines at once with random step faults, resumed, deleted, the account checked empty; minutes of "
    "CPU): run it with `make soak` (SOAK=1; SOAK_SEED=<n> repeats a run, SOAK_PIPELINES=<n> changes its size)."
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("SOAK") == "1":
        return
    skip = pytest.mark.skip(reason=HOW_TO_RUN)
    for item in items:
        if item.path.parent.name == "soak":
            item.add_marker(skip)
