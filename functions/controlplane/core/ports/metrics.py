"""Metrics the core reports as it changes state (where they go is the adapter's business)."""

from __future__ import annotations

from typing import Protocol

from controlplane.models.operations import Operation


class OperationMetrics(Protocol):
    def transition(self, before: Operation, after: Operation) -> None:
        """An operation was written: `before` is what it was, `after` what it is now."""
