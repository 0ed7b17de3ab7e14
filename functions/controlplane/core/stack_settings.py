"""Settings the workflow services share."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PollSettings:
    """How long a check step asks the workflow to wait between polls, and how many polls are allowed."""

    wait_seconds: int
    max_attempts: int
