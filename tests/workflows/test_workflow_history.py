"""The longest wait any workflow can make stays under 10 % of Step Functions' 25,000-event execution history.

Counted from the checked-in ASL and the poll policy Lambda runs with: every state adds its entered/exited events,
a Lambda Task also TaskScheduled/TaskStarted/TaskSucceeded; a wait loop (Task → Choice → Wait) adds its three
states' events once per check, and the checks in a wait are those the back-off makes before the deadline.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from controlplane.core.deadlines import LONGEST_WAIT
from controlplane.core.polling import PollSettings
from controlplane.models.operations import OperationKind
from controlplane.settings import Settings
from controlplane.workflows import definition_text
from controlplane.workflows.definitions import WORKFLOWS
from controlplane.workflows.spec import Poll

HISTORY_LIMIT = 25_000
BUDGET = HISTORY_LIMIT // 10
EXECUTION_EVENTS = 2  # ExecutionStarted, ExecutionSucceeded (or ExecutionFailed)
EVENTS_PER_STATE = {
    "Task": 5,  # TaskStateEntered, TaskScheduled, TaskStarted, TaskSucceeded, TaskStateExited
    "Choice": 2,  # ChoiceStateEntered, ChoiceStateExited
    "Wait": 2,  # WaitStateEntered, WaitStateExited
    "Pass": 2,
    "Succeed": 2,
    "Fail": 2,
}


def aws_poll_settings(monkeypatch: pytest.MonkeyPatch) -> PollSettings:
    """The policy a step Lambda runs with: the settings' defaults, which the stack leaves as they are."""
    for name in ("IS_POLL_SECONDS", "IS_POLL_MAX_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    return PollSettings(settings.poll_seconds, settings.poll_max_seconds)


def checks_within(wait: timedelta, poll: PollSettings) -> int:
    """How many checks a loop makes in `wait`, each waiting what the back-off asks after the time waited."""
    waited, checks = timedelta(0), 0
    while waited < wait:
        checks += 1
        waited += timedelta(seconds=max(1, poll.wait_seconds(waited)))
    return checks


def loop_events(states: dict[str, dict], poll: Poll) -> int:
    """The events of one round of a wait loop, after checking that the ASL really loops through those states."""
    check, choice, wait = states[poll.step], states[poll.choice], states[poll.wait]
    assert (check["Next"], choice["Default"], wait["Next"]) == (poll.choice, poll.wait, poll.step)
    assert wait["SecondsPath"] == "$.poll.waitSeconds"
    return sum(EVENTS_PER_STATE[state["Type"]] for state in (check, choice, wait))


def longest_wait_events(kind: OperationKind, poll: PollSettings) -> int:
    """One execution where one wait loop runs `LONGEST_WAIT` and every other state runs once."""
    states = json.loads(definition_text(kind))["States"]
    once = EXECUTION_EVENTS + sum(EVENTS_PER_STATE[state["Type"]] for state in states.values())
    loops = [block for _, block in WORKFLOWS[kind].tasks() if isinstance(block, Poll)]
    longest_loop = max((loop_events(states, loop) for loop in loops), default=0)
    return once + checks_within(LONGEST_WAIT, poll) * longest_loop


def test_the_poll_policy_backs_off_from_30_seconds_to_30_minutes(monkeypatch):
    poll = aws_poll_settings(monkeypatch)
    assert (poll.first_wait_seconds, poll.max_wait_seconds) == (30, 1800)
    assert checks_within(LONGEST_WAIT, poll) < 200


@pytest.mark.parametrize("kind", list(OperationKind))
def test_a_72_hour_wait_stays_under_a_tenth_of_the_history_limit(kind, monkeypatch):
    assert timedelta(hours=72) == LONGEST_WAIT
    assert longest_wait_events(kind, aws_poll_settings(monkeypatch)) < BUDGET


def test_a_fixed_30_second_poll_would_not(monkeypatch):
    """Why the back-off: without it, a 72-hour wait would spend most of the history."""
    fixed = PollSettings(first_wait_seconds=30, max_wait_seconds=30)
    assert longest_wait_events(OperationKind.CREATE_CLUSTER, fixed) > HISTORY_LIMIT
