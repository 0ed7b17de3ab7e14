"""The longest wait any workflow can make stays under 10 % of Step Functions' 25,000-event execution history.

Counted from the checked-in ASL and the poll policy Lambda runs with: every state adds its entered/exited events,
a Lambda Task also TaskScheduled/TaskStarted/TaskSucceeded (a task-token Task also TaskSubmitted); a wait loop
(Task → Choice → Wait, or → Await for an event-ended HyperPod wait) adds its three states' events once per check,
and the checks in a wait are those the back-off makes before the deadline (an event-ended loop's back-off grows
further: its fallback only catches a missed event). Each event that wakes a wait early costs one more round.
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
# TaskStateEntered, TaskScheduled, TaskStarted, TaskSubmitted, TaskSucceeded or TaskTimedOut, TaskStateExited
TOKEN_TASK_EVENTS = 6


def aws_poll_settings(monkeypatch: pytest.MonkeyPatch) -> PollSettings:
    """The policy a step Lambda runs with: the settings' defaults, which the stack leaves as they are."""
    for name in ("IS_POLL_SECONDS", "IS_POLL_MAX_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    return PollSettings(settings.poll_seconds, settings.poll_max_seconds)


def checks_within(wait: timedelta, poll: PollSettings, by_event: bool = False) -> int:
    """How many checks a loop makes in `wait`, each waiting what the back-off asks after the time waited."""
    waited, checks = timedelta(0), 0
    while waited < wait:
        checks += 1
        waited += timedelta(seconds=max(1, poll.wait_seconds(waited, by_event)))
    return checks


def state_events(state: dict) -> int:
    if state["Type"] == "Task" and state["Resource"].endswith(".waitForTaskToken"):
        return TOKEN_TASK_EVENTS
    return EVENTS_PER_STATE[state["Type"]]


def loop_events(states: dict[str, dict], poll: Poll) -> int:
    """The events of one round of a wait loop, after checking that the ASL really loops through those states."""
    check, choice, wait = states[poll.step], states[poll.choice], states[poll.wait]
    assert (check["Next"], choice["Default"], wait["Next"]) == (poll.choice, poll.wait, poll.step)
    if poll.topic:
        assert wait["TimeoutSecondsPath"] == "$.poll.timeoutSeconds" and check["ResultSelector"]["byEvent"] is True
        assert wait["Catch"][0] == {"ErrorEquals": ["States.Timeout"], "ResultPath": None, "Next": poll.step}
    else:
        assert wait["SecondsPath"] == "$.poll.waitSeconds"
    return sum(state_events(state) for state in (check, choice, wait))


def longest_wait_events(kind: OperationKind, poll: PollSettings) -> int:
    """One execution where one wait loop runs `LONGEST_WAIT` and every other state runs once."""
    states = json.loads(definition_text(kind))["States"]
    once = EXECUTION_EVENTS + sum(state_events(state) for state in states.values())
    loops = [block for _, block in WORKFLOWS[kind].tasks() if isinstance(block, Poll)]
    longest = max(
        (loop_events(states, loop) * checks_within(LONGEST_WAIT, poll, bool(loop.topic)) for loop in loops), default=0
    )
    return once + longest


def test_the_poll_policy_backs_off_from_5_seconds_to_2_hours(monkeypatch):
    poll = aws_poll_settings(monkeypatch)
    assert (poll.first_wait_seconds, poll.max_wait_seconds) == (5, 7200)
    assert checks_within(LONGEST_WAIT, poll) < 200


@pytest.mark.parametrize("kind", list(OperationKind))
def test_a_72_hour_wait_stays_under_a_tenth_of_the_history_limit(kind, monkeypatch):
    assert timedelta(hours=72) == LONGEST_WAIT
    assert longest_wait_events(kind, aws_poll_settings(monkeypatch)) < BUDGET


def test_a_fixed_30_second_poll_would_not(monkeypatch):
    """Why the back-off: without it, a 72-hour wait would spend most of the history."""
    fixed = PollSettings(first_wait_seconds=30, max_wait_seconds=30)
    assert longest_wait_events(OperationKind.CREATE_CLUSTER, fixed) > HISTORY_LIMIT


def test_an_event_ended_wait_costs_13_events_a_round_and_backs_off_further(monkeypatch):
    """Measured from the ASL: check (5) + choice (2) + the task-token await (6); each early wake is one round."""
    poll = aws_poll_settings(monkeypatch)
    states = json.loads(definition_text(OperationKind.CREATE_HYPERPOD_CLUSTER))["States"]
    (loop,) = [
        block
        for _, block in WORKFLOWS[OperationKind.CREATE_HYPERPOD_CLUSTER].tasks()
        if isinstance(block, Poll) and block.topic
    ]
    rounds = checks_within(LONGEST_WAIT, poll, by_event=True)
    print(f"event-ended wait: {loop_events(states, loop)} events a round, {rounds} fallback rounds in 72 h")
    assert loop_events(states, loop) == 13
    assert rounds < checks_within(LONGEST_WAIT, poll) * 2 // 3
