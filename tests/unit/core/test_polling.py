"""Wait loops: the back-off grows with the time waited, each wait's deadline is sized to its work, and a wait that
runs out says what it waited for, how long, and how to go on."""

from __future__ import annotations

from datetime import timedelta

import pytest

from controlplane.core import deadlines
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.polling import Poller, PollSettings, Wait, duration
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.models.errors import WaitTimeoutError
from controlplane.models.instance_groups import RollingPolicy
from controlplane.models.operations import OperationKind
from controlplane.models.workflow import PollState
from tests.fakes.account import ACCOUNT_ID

AWS = PollSettings(first_wait_seconds=5, max_wait_seconds=7200)


def group(count: int, deep_health_checks: bool = False) -> InstanceGroup:
    return InstanceGroup(
        name="gpu",
        instance_type="ml.p5.48xlarge",
        status="InService",
        current_count=count,
        target_count=count,
        deep_health_checks=deep_health_checks,
    )


def test_the_wait_is_5_seconds_then_a_twentieth_of_the_time_waited_then_2_hours():
    assert [AWS.wait_seconds(timedelta(minutes=m)) for m in (0, 1, 10, 60, 300, 3000)] == [5, 5, 30, 180, 900, 7200]


def test_an_event_ended_wait_falls_back_twice_as_slowly():
    assert [AWS.wait_seconds(timedelta(minutes=m), by_event=True) for m in (0, 10, 3000)] == [10, 60, 14400]


def test_the_sandbox_waits_near_zero_whatever_the_time_waited():
    sandbox = PollSettings(first_wait_seconds=0, max_wait_seconds=0)
    assert sandbox.wait_seconds(timedelta(hours=5)) == 0


def test_a_wait_as_a_task_timeout_is_at_least_a_second():
    """An event-ended loop waits in a task-token Task whose `TimeoutSecondsPath` must select a positive integer; a
    zero there (the sandbox's waits) timed the task out under moto before it was scheduled, leaving a history that
    could not be read, so the pipeline's failure went unrecorded."""
    waits = [PollState(done=False, attempts=1, waitSeconds=seconds) for seconds in (0, 1, 3600)]
    assert [wait.timeoutSeconds for wait in waits] == [1, 1, 3600]
    assert waits[0].model_dump(mode="json")["timeoutSeconds"] == 1


def test_hyperpod_deadlines_grow_with_instances_and_deep_health_checks():
    assert deadlines.instances_in_service([group(0)]) == timedelta(hours=1)
    assert deadlines.instances_in_service([group(500)]) == timedelta(hours=1, minutes=50)
    assert deadlines.instances_in_service([group(500, deep_health_checks=True)]) == timedelta(hours=4, minutes=40)
    assert deadlines.instances_in_service([group(500), group(1500)]) == timedelta(hours=4, minutes=20)


def test_software_update_deadline_counts_rolling_batches_and_their_pauses():
    by_percent = RollingPolicy(batchType="percentage", batchSize=20, waitIntervalSeconds=0)
    assert deadlines.software_update([group(100)], by_percent) == timedelta(hours=3, minutes=30)
    by_count = RollingPolicy(batchType="count", batchSize=10, waitIntervalSeconds=600)
    assert deadlines.software_update([group(30)], by_count) == timedelta(hours=3)


def test_fsx_deadline_grows_with_capacity_and_no_deadline_exceeds_the_longest_wait():
    assert deadlines.fsx_available(1200) == timedelta(minutes=34)
    assert deadlines.software_update([group(5000)], RollingPolicy(batchType="count", batchSize=1)) == (
        deadlines.LONGEST_WAIT
    )


@pytest.fixture
def ctx(make_record):
    return workflow_input(OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES, "op-1", make_record("eks"), ACCOUNT_ID)


def test_every_check_of_a_loop_measures_from_its_first_check(ctx, clock):
    poller = Poller(AWS, clock)
    wait = Wait("the add-ons of eks-cluster-demo to be ACTIVE", timedelta(minutes=30))
    first = poller.poll(ctx, wait, done=False, status="CREATING")
    assert (first.attempts, first.waitSeconds, first.startedAt) == (1, 5, clock.now())
    clock.sleep(20 * 60)
    later = poller.poll(ctx.model_copy(update={"poll": first}), wait, done=False, status="CREATING")
    assert (later.attempts, later.waitSeconds, later.startedAt) == (2, 60, first.startedAt)


def test_work_of_a_usual_duration_is_checked_at_once_then_once_it_usually_ends_then_backs_off_from_there(ctx, clock):
    poller = Poller(AWS, clock)
    wait = Wait("EKS cluster eks-cluster-demo to be ACTIVE", timedelta(minutes=30), usually=timedelta(minutes=8))
    first = poller.poll(ctx, wait, done=False, status="CREATING")
    clock.sleep(first.waitSeconds)
    second = poller.poll(ctx.model_copy(update={"poll": first}), wait, done=False, status="CREATING")
    clock.sleep(200)  # 200 s past the usual 8 min: a twentieth of that
    later = poller.poll(ctx.model_copy(update={"poll": second}), wait, done=False, status="CREATING")
    assert (first.waitSeconds, second.waitSeconds, later.waitSeconds) == (480, 5, 10)


def test_a_usual_duration_waits_no_longer_at_a_time_than_the_settings_let_a_wait_last(ctx, clock):
    sandbox = Poller(PollSettings(first_wait_seconds=1, max_wait_seconds=1), clock)
    wait = Wait("EKS cluster eks-cluster-demo to be ACTIVE", timedelta(minutes=30), usually=timedelta(minutes=8))
    assert sandbox.poll(ctx, wait, done=False, status="CREATING").waitSeconds == 1


def test_the_last_wait_ends_at_the_deadline_rather_than_a_back_off_past_it(ctx, clock):
    poller = Poller(AWS, clock)
    wait = Wait("HyperPod cluster hp-cluster-demo and its instances to be in service", timedelta(hours=4, minutes=40))
    polled = ctx.model_copy(
        update={"poll": PollState(done=False, attempts=30, waitSeconds=1620, startedAt=clock.now())}
    )
    clock.sleep(timedelta(hours=4, minutes=30).total_seconds())
    assert poller.poll(polled, wait, done=False, status="Creating").waitSeconds == 600
    clock.sleep(600)
    with pytest.raises(WaitTimeoutError, match=r"Gave up after waiting 4 h 40 min"):
        poller.poll(polled, wait, done=False, status="Creating")


def test_a_loop_whose_deadline_has_passed_says_what_it_waited_for_how_long_and_how_to_go_on(ctx, clock):
    poller = Poller(AWS, clock)
    wait = Wait("the add-ons of eks-cluster-demo to be ACTIVE", timedelta(minutes=30))
    polled = ctx.model_copy(update={"poll": PollState(done=False, attempts=9, waitSeconds=30, startedAt=clock.now())})
    clock.sleep(31 * 60)
    assert poller.poll(polled, wait, done=True, status="ACTIVE").done
    with pytest.raises(WaitTimeoutError) as raised:
        poller.poll(polled, wait, done=False, status="CREATING")
    assert str(raised.value) == (
        "Gave up after waiting 31 min (this wait's deadline: 30 min) for the add-ons of eks-cluster-demo to be "
        "ACTIVE; its status is CREATING. Fix what holds it up, if anything does; POST /operations/op-1/resume "
        "continues waiting."
    )


def test_durations_read_as_a_person_writes_them():
    assert [duration(timedelta(seconds=s)) for s in (50, 2700, 7500)] == ["50 s", "45 min", "2 h 05 min"]
