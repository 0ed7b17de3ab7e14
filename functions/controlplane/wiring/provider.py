"""The composition root's registration decorator: `@provider` caches a factory for the life of the process and
registers it, so that `reset()` forgets every cached object, whichever context's module declares it."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from controlplane.settings import settings

if TYPE_CHECKING:
    from functools import _lru_cache_wrapper

T = TypeVar("T")

_PROVIDERS: list[_lru_cache_wrapper[Any]] = []


def provider(factory: Callable[..., T]) -> _lru_cache_wrapper[T]:
    """Cache `factory` (per argument, e.g. per Region) and register it for `reset()`."""
    cached = cache(factory)
    _PROVIDERS.append(cached)
    return cached


def reset() -> None:
    """Forget every cached object and the settings (the sandbox calls this after changing the environment)."""
    for factory in _PROVIDERS:
        factory.cache_clear()
    settings.cache_clear()
