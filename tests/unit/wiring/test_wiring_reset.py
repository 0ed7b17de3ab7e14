"""`wiring.reset()` forgets every cached object: the sandbox relies on it after changing the environment."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from controlplane import wiring

REGION = "us-east-1"


@pytest.fixture(autouse=True)
def _forget() -> Iterator[None]:
    wiring.reset()
    yield
    wiring.reset()


def cached_factories() -> dict[str, Any]:
    return {name: value for name, value in vars(wiring).items() if hasattr(value, "cache_clear")}


def test_reset_forgets_the_node_steps() -> None:
    before = wiring.node_steps(REGION)
    wiring.reset()
    assert wiring.node_steps(REGION) is not before


def test_reset_clears_every_cached_factory_of_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    cleared: list[str] = []
    factories = cached_factories()
    for name, factory in factories.items():
        monkeypatch.setattr(factory, "cache_clear", lambda name=name: cleared.append(name))
    wiring.reset()
    assert sorted(cleared) == sorted(factories)
    assert {"node_steps", "settings", "eks_stack", "operations"} <= set(cleared)


def test_factories_reach_one_another_through_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """An object replaced on the package (the sandbox's clock) reaches every factory built after it."""
    replaced = wiring.SystemClock()
    monkeypatch.setattr(wiring, "clock", lambda: replaced)
    assert wiring.poller()._clock is replaced
