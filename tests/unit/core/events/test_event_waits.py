"""The missed-event gap: an event handled after a round's check began but before its await step stored the task
token finds nothing to wake; the await step, once its token is stored, sees that an event of its topic came after
the check began and ends its own wait at once. Each race is driven step by step on a fake clock."""

from __future__ import annotations

from datetime import timedelta

from controlplane.core.events.waits import EventWaitSteps, wait_key
from controlplane.models.events import HyperPodEvent
from tests.fakes.events import InMemoryEventWaits, RecordingTaskSignal
from tests.unit.core.events.test_event_service import HP, Setup

REGION = "us-west-2"


def state_change(setup: Setup, status: str = "InService") -> HyperPodEvent:
    return HyperPodEvent(
        eventId=f"change-{status}",
        kind="ClusterStateChange",
        time=setup.world.clock.now(),
        region=REGION,
        clusterName=HP,
        clusterStatus=status,
    )


def test_an_event_between_the_check_and_the_stored_token_ends_the_wait_at_once():
    setup = Setup()
    steps = EventWaitSteps(setup.waits, setup.signal)
    checked_at = setup.world.clock.now()  # the round's check begins and observes the old state
    setup.world.clock.sleep(1)
    assert setup.events.handle(state_change(setup)).woken == 0  # the event: no token stored yet
    setup.world.clock.sleep(1)
    parked = steps.park(REGION, HP, "cluster", "token-1", "in service", checked_at)
    assert parked["woken"] is True
    assert setup.signal.woken == ["token-1"]
    assert setup.waits.take(wait_key(REGION, HP, "cluster")) == []  # the token is no longer waiting


def test_an_event_before_the_check_began_does_not_end_the_next_wait():
    setup = Setup()
    steps = EventWaitSteps(setup.waits, setup.signal)
    setup.events.handle(state_change(setup))  # seen by the check that follows
    setup.world.clock.sleep(1)
    checked_at = setup.world.clock.now()
    parked = steps.park(REGION, HP, "cluster", "token-1", "in service", checked_at)
    assert parked["woken"] is False
    assert setup.signal.woken == []
    assert setup.waits.take(wait_key(REGION, HP, "cluster")) == ["token-1"]


def test_an_event_of_another_topic_does_not_end_the_wait():
    setup = Setup()
    steps = EventWaitSteps(setup.waits, setup.signal)
    checked_at = setup.world.clock.now()
    setup.world.clock.sleep(1)
    setup.events.handle(setup.unhealthy(setup.node(), seconds=1))  # wakes node waits only
    parked = steps.park(REGION, HP, "cluster", "token-1", "in service", checked_at)
    assert (parked["woken"], setup.signal.woken) == (False, [])


class HandledBetweenStoreAndRead(InMemoryEventWaits):
    """The event's handler noted itself before the await step stored its token, and takes the token right after."""

    def __init__(self, signal: RecordingTaskSignal) -> None:
        super().__init__()
        self._signal = signal

    def add(self, key: str, token: str, what: str) -> None:
        super().add(key, token, what)
        for taken in self.take(key):
            self._signal.wake(taken)


def test_a_token_the_event_already_took_is_not_woken_twice():
    signal = RecordingTaskSignal()
    waits = HandledBetweenStoreAndRead(signal)
    checked_at = Setup().world.clock.now()
    waits.signal(wait_key(REGION, HP, "cluster"), checked_at + timedelta(seconds=1))
    parked = EventWaitSteps(waits, signal).park(REGION, HP, "cluster", "token-1", "in service", checked_at)
    assert parked["woken"] is False
    assert signal.woken == ["token-1"]
