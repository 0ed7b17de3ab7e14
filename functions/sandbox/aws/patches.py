"""Attribute patches on moto and botocore classes that can be taken off again, as every extension needs."""

from __future__ import annotations

from typing import Any

_MISSING = object()


class Patches:
    """Replaces class attributes and mapping items, remembering what was there; :meth:`restore` puts it back."""

    def __init__(self) -> None:
        self._originals: list[tuple[Any, str, Any]] = []

    def replace(self, owner: Any, name: str, value: Any) -> None:
        """Set ``owner.name`` to ``value`` (a class attribute or a mapping's item, e.g. a moto URL table's)."""
        if isinstance(owner, dict):
            self._originals.append((owner, name, owner.get(name, _MISSING)))
            owner[name] = value
        else:
            self._originals.append((owner, name, owner.__dict__.get(name, _MISSING)))
            setattr(owner, name, value)

    def restore(self) -> None:
        """Undo every replacement, newest first; what was not there before is removed."""
        for owner, name, original in reversed(self._originals):
            if isinstance(owner, dict):
                if original is _MISSING:
                    owner.pop(name, None)
                else:
                    owner[name] = original
            elif original is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        self._originals = []
