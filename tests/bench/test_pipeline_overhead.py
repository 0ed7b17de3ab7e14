"""What the control plane adds to a full pipeline (POST /clusters, with FSx) beyond AWS's own provisioning time.

Run with `make bench`. The sandbox's resources take AWS's times at their real proportions (`AWS_SECONDS`), `SCALE`
times faster (`tests/bench/timescale.py`: the workflows' waits and the control plane's clock too, so a wait loop
polls as it would on AWS). An observer reads the simulated account every `TICK` s, as a perfectly attentive event
would, and notes when each awaited resource became ready (reading also settles what the sandbox settles lazily, so
a resource is ready on time whoever looks). The execution's history then splits the pipeline's time:
- AWS's: from each creating step to its resource's readiness (the union of those spans);
- the control plane's, the rest: waits that outlasted a readiness (a poll's back-off, scaled back to real seconds;
  an event's delivery, not scaled), the step Lambdas' own time and Step Functions' transitions (the machine's
  speed, not scaled: the sandbox's Lambdas call moto and the Kubernetes emulator in-process, faster than AWS's APIs).
Each wait's row says how long after its resource was ready the workflow noticed it, in real seconds, beside the
poll policy's mean for that wait (a run's figure depends on where its checks happen to fall). One pipeline per
entry of `RUNS`, medians printed; the goal is <= 30 s of control plane per pipeline. Not simulated, so not counted:
NAT gateway creation (the sandbox's are available at once; `nat_gateway_notice` prints what Ensure Route Tables'
Retry schedule costs on AWS) and the node agents' image pulls (their pods are Ready as the nodes join). A
measurement, not a timed assertion.
"""

from __future__ import annotations

import itertools
import os
import statistics
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from controlplane import wiring
from controlplane.core import deadlines
from controlplane.core.polling import PollSettings
from controlplane.workflows.asl import RETRY
from sandbox.runtime import HOME_REGION
from tests.bench.timescale import TimeScale
from tests.conftest import RunningSandbox, aws_client, serve_sandbox

SCALE = 30  # simulated seconds per real second
# Each run's AWS times, as a fraction of `AWS_SECONDS`: AWS's times vary, and a wait's notice depends on where its
# checks happen to fall.
RUNS = (1.0, 0.9, 1.1)
TICK = 0.025  # the observer's period, real seconds
REGION = "us-west-2"
GOAL_SECONDS = 30
# AWS's times, seconds: EKS control plane CREATING → ACTIVE, an EKS add-on CREATING → ACTIVE (and ACTIVE once its
# pods have a node), HyperPod Creating → InService with one instance, FSx for Lustre CREATING → AVAILABLE (1.2 TiB).
AWS_SECONDS = {"eks": 600, "addon": 90, "hyperpod": 1050, "fsx": 600}
NAT_GATEWAY_SECONDS = 120  # a NAT gateway pending → available, for the arithmetic of `nat_gateway_notice`
BODY = {
    "region": REGION,
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1},
    "storage": {"fsx": {"storageCapacityGiB": 1200}},
}


@dataclass(frozen=True)
class Awaited:
    """A resource the pipeline waits for: the step whose end starts AWS's work (None: the previous wait's
    readiness), the poll loop that waits for it (its check step), and what the observer reads."""

    name: str
    created_by: str | None
    check: str
    ready: Callable[[str], bool]
    aws_seconds: int
    by_event: bool = False
    usually: timedelta = timedelta(0)  # the wait's usual duration (`core.deadlines`): no check before it


def _eks_active(tag: str) -> bool:
    return aws_client("eks", REGION).describe_cluster(name=f"eks-cluster-{tag}")["cluster"]["status"] == "ACTIVE"


def _addons(tag: str) -> list[dict[str, Any]]:
    eks = aws_client("eks", REGION)
    names = eks.list_addons(clusterName=f"eks-cluster-{tag}")["addons"]
    return [eks.describe_addon(clusterName=f"eks-cluster-{tag}", addonName=name)["addon"] for name in names]


def _addons_settled(tag: str) -> bool:
    addons = _addons(tag)
    return bool(addons) and all(addon["status"] != "CREATING" for addon in addons)


def _addons_active(tag: str) -> bool:
    addons = _addons(tag)
    return bool(addons) and all(addon["status"] == "ACTIVE" for addon in addons)


def _hyperpod_in_service(tag: str) -> bool:
    cluster = aws_client("sagemaker", REGION).describe_cluster(ClusterName=f"hp-cluster-{tag}")
    return bool(cluster["ClusterStatus"] == "InService")


def _fsx_csi_active(tag: str) -> bool:
    addon = aws_client("eks", REGION).describe_addon(clusterName=f"eks-cluster-{tag}", addonName="aws-fsx-csi-driver")
    return bool(addon["addon"]["status"] == "ACTIVE")


def _fsx_available(tag: str) -> bool:
    systems = aws_client("fsx", REGION).describe_file_systems()["FileSystems"]
    return any(system["Lifecycle"] == "AVAILABLE" for system in systems if f"'{tag}'" in str(system.get("Tags")))


AWAITED = (
    Awaited(
        "EKS control plane ACTIVE",
        "Create EKS Cluster",
        "Check EKS Cluster",
        _eks_active,
        AWS_SECONDS["eks"],
        usually=deadlines.EKS_CLUSTER_ACTIVE_USUALLY,
    ),
    Awaited("stage-3 add-ons settled", "Ensure Addons", "Check Addons", _addons_settled, AWS_SECONDS["addon"]),
    Awaited(
        "HyperPod InService (event-ended)",
        "Create HyperPod Cluster",
        "Check HyperPod Cluster",
        _hyperpod_in_service,
        AWS_SECONDS["hyperpod"],
        by_event=True,
    ),
    Awaited("add-ons ACTIVE on the new nodes", None, "Check Addons Healthy", _addons_active, AWS_SECONDS["addon"]),
    Awaited(
        "FSx CSI driver ACTIVE", "Ensure Fsx Csi Driver", "Ensure Fsx Csi Driver", _fsx_csi_active, AWS_SECONDS["addon"]
    ),
    Awaited(
        "FSx file system AVAILABLE",
        "Create FSx File System",
        "Check FSx File System",
        _fsx_available,
        AWS_SECONDS["fsx"],
        usually=deadlines.FSX_AVAILABLE_USUALLY,
    ),
)


class Observer:
    """Reads the simulated account every TICK s and notes when each awaited resource was first seen ready."""

    def __init__(self, tag: str) -> None:
        self._tag = tag
        self.ready: dict[str, datetime] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Observer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(TICK):
            for awaited in AWAITED:
                if awaited.name not in self.ready:
                    try:
                        if awaited.ready(self._tag):
                            self.ready[awaited.name] = datetime.now(UTC)
                    except Exception:  # noqa: BLE001 - not created yet
                        pass


Span = tuple[datetime, datetime]
WAIT, EVENT, STEP, TRANSITION = "wait", "event", "step", "transition"


@dataclass(frozen=True)
class Segment:
    """A span of the execution: a `WAIT` (a Wait state, a parked event wait that timed out, a Retry interval) stands
    for `SCALE` times its length; the others (an `EVENT`'s delivery, a `STEP`, a `TRANSITION`) for their own."""

    start: datetime
    end: datetime
    kind: str


def segments(history: list[dict[str, Any]]) -> list[Segment]:
    """The execution's time, event to event, by what it was spent on."""
    result = []
    for event, following in itertools.pairwise(history):
        kind = {
            "TaskScheduled": STEP,
            "TaskStarted": STEP,
            "WaitStateEntered": WAIT,
            "TaskSubmitted": EVENT if following["type"] == "TaskSucceeded" else WAIT,
            "TaskFailed": WAIT if following["type"] == "TaskScheduled" else TRANSITION,
        }.get(event["type"], TRANSITION)
        result.append(Segment(event["timestamp"], following["timestamp"], kind))
    return result


def real_seconds(spans: list[Segment], start: datetime, end: datetime, busy: list[Span]) -> float:
    """What [start, end) stands for in real seconds, leaving out the spans in `busy` (AWS's time)."""
    total = 0.0
    for span in spans:
        pieces = [(max(span.start, start), min(span.end, end))]
        for busy_start, busy_end in busy:
            pieces = [
                part
                for a, b in pieces
                for part in ((a, min(b, busy_start)), (max(a, busy_end), b))
                if part[1] > part[0]
            ]
        seconds = sum((b - a).total_seconds() for a, b in pieces if b > a)
        total += seconds * SCALE if span.kind == WAIT else seconds
    return total


def union(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


@dataclass(frozen=True)
class Pipeline:
    total: float  # real seconds the execution stands for
    aws: float  # of which AWS's provisioning
    noticed: dict[str, float]  # per awaited resource: real seconds from ready to the check that saw it
    waits: float  # the control plane's time in waits (back-off past a readiness, event delivery)
    steps: float
    transitions: float
    rounds: dict[str, int]  # checks per wait loop


def analyse(history: list[dict[str, Any]], ready: dict[str, datetime]) -> Pipeline:
    spans = segments(history)
    start, end = history[0]["timestamp"], history[-1]["timestamp"]
    exits = {}
    entered: dict[str, list[datetime]] = {}
    for event in history:
        details = next((value for key, value in event.items() if key.endswith("EventDetails")), {})
        if event["type"] == "TaskStateExited":
            exits.setdefault(details["name"], event["timestamp"])
        if event["type"] == "TaskStateEntered":
            entered.setdefault(details["name"], []).append(event["timestamp"])
    spent, previous = [], start
    for awaited in AWAITED:
        created = exits[awaited.created_by] if awaited.created_by else previous
        spent.append((created, ready[awaited.name]))
        previous = ready[awaited.name]
    busy = union(spent)
    noticed = {}
    for awaited in AWAITED:
        seen = entered[awaited.check][-1]  # the check that found it ready
        noticed[awaited.name] = real_seconds(spans, min(ready[awaited.name], seen), seen, busy)
    aws = sum((b - a).total_seconds() for a, b in busy) * SCALE

    def of(*kinds: str) -> float:
        return real_seconds([span for span in spans if span.kind in kinds], start, end, busy)

    return Pipeline(
        total=aws + real_seconds(spans, start, end, busy),
        aws=aws,
        noticed=noticed,
        waits=of(WAIT, EVENT),
        steps=of(STEP),
        transitions=of(TRANSITION),
        rounds={awaited.check: len(entered[awaited.check]) for awaited in AWAITED},
    )


def expected_notice(seconds: float, usually: timedelta) -> float:
    """How long after a resource of about `seconds` (usually at least `usually`) is ready the poll policy notices it,
    on average: the checks from the resource's creation, over durations from 80 % to 120 % of `seconds`."""
    config = wiring.settings()
    policy = PollSettings(config.poll_seconds, config.poll_max_seconds)
    delays = []
    for step in range(41):
        duration, at = seconds * (0.8 + step / 100), 0.0
        while at < duration:
            at += policy.wait_seconds(timedelta(seconds=at), usually=usually)
        delays.append(at - duration)
    return statistics.mean(delays)


def nat_gateway_notice(seconds: float) -> float:
    """How long after a NAT gateway of `seconds` becomes available Ensure Route Tables sees it: its
    ResourceNotReadyError Retry (the interval, growing by the rate) as the ASL declares it."""
    retry = next(rule for rule in RETRY if rule["ErrorEquals"] == ["ResourceNotReadyError"])
    at, interval = 0.0, float(retry["IntervalSeconds"])
    for _ in range(int(retry["MaxAttempts"])):
        at += interval
        if at >= seconds:
            return at - seconds
        interval *= float(retry["BackoffRate"])
    return float("nan")


@pytest.fixture(scope="module")
def scaled_sandbox() -> Iterator[RunningSandbox]:
    """A sandbox whose resources take AWS's times at scale, with the poll policy Lambda runs with on AWS."""
    with serve_sandbox(seconds_to_active=0.05, poll_seconds=1, operation_wait_poll_seconds=0.5) as running:
        for name in ("IS_POLL_SECONDS", "IS_POLL_MAX_SECONDS"):  # the settings' defaults, as the stack leaves them
            os.environ.pop(name)
        wiring.reset()
        yield running


def run_pipeline(running: RunningSandbox, tag: str, fraction: float) -> tuple[dict[str, Any], Pipeline]:
    sandbox = running.sandbox
    sandbox.eks.seconds = AWS_SECONDS["eks"] * fraction / SCALE
    sandbox.addons.seconds = AWS_SECONDS["addon"] * fraction / SCALE
    sandbox.hyperpod.seconds = AWS_SECONDS["hyperpod"] * fraction / SCALE
    sandbox.fsx.seconds = AWS_SECONDS["fsx"] * fraction / SCALE
    with TimeScale(SCALE), Observer(tag) as observer, running.client() as api:
        accepted = api.post("/clusters", json={"clusterTag": tag, **BODY})
        assert accepted.status_code == 202, accepted.text
        operation = running.wait_terminal(accepted.json()["operationId"], limit_seconds=3 * 3600 / SCALE)
    assert operation["status"] == "SUCCEEDED", operation.get("error")
    return operation, analyse(execution_history(operation["operationId"]), observer.ready)


def execution_history(operation_id: str) -> list[dict[str, Any]]:
    """The events of the operation's execution (the pipeline's state machine names it after the operation)."""
    stepfunctions = boto3.client("stepfunctions", region_name=HOME_REGION)
    (execution,) = [
        execution
        for machine in stepfunctions.list_state_machines()["stateMachines"]
        for execution in stepfunctions.list_executions(stateMachineArn=machine["stateMachineArn"])["executions"]
        if execution["name"].startswith(operation_id)
    ]
    pages = stepfunctions.get_paginator("get_execution_history").paginate(executionArn=execution["executionArn"])
    return [event for page in pages for event in page["events"]]


@pytest.mark.bench
@pytest.mark.timeout(3600)
def test_what_the_control_plane_adds_to_a_pipeline(scaled_sandbox: RunningSandbox) -> None:
    runs = [run_pipeline(scaled_sandbox, f"pipe{index}", fraction)[1] for index, fraction in enumerate(RUNS)]

    def median(read: Callable[[Pipeline], float]) -> float:
        return statistics.median(read(run) for run in runs)

    print(f"\nPOST /clusters with FSx, AWS's times at 1/{SCALE} scale; medians of {len(RUNS)} runs, real seconds")
    print(f"load average {os.getloadavg()[0]:.1f}; AWS's times: {AWS_SECONDS}, times {RUNS} in the runs")
    print(f"{'awaited':38} {'AWS s':>6} {'noticed after s':>16} {'back-off, mean':>15} {'checks':>7}")
    means = []
    for awaited in AWAITED:
        noticed = statistics.median(run.noticed[awaited.name] for run in runs)
        means.append(0.0 if awaited.by_event else expected_notice(awaited.aws_seconds, awaited.usually))
        expected = "event" if awaited.by_event else f"{means[-1]:.1f}"
        checks = statistics.median(run.rounds[awaited.check] for run in runs)
        print(f"{awaited.name:38} {awaited.aws_seconds:6} {noticed:16.1f} {expected:>15} {checks:7.0f}")
    control = median(lambda run: run.total - run.aws)
    steps = median(lambda run: run.steps) + median(lambda run: run.transitions)
    print(f"pipeline {median(lambda run: run.total):.0f} s, AWS's provisioning {median(lambda run: run.aws):.0f} s")
    print(
        f"control plane {control:.1f} s (goal <= {GOAL_SECONDS} s): waits past readiness "
        f"{median(lambda run: run.waits):.1f} s, steps {median(lambda run: run.steps):.1f} s, "
        f"transitions {median(lambda run: run.transitions):.1f} s; with the back-off's means instead of these "
        f"runs' waits: {sum(means) + steps:.1f} s"
    )
    nat = statistics.mean(nat_gateway_notice(seconds) for seconds in range(60, 181))
    print(
        f"not simulated: a NAT gateway of {NAT_GATEWAY_SECONDS} s is seen by Ensure Route Tables' Retry "
        f"{nat_gateway_notice(NAT_GATEWAY_SECONDS):.0f} s after it is available (one of 1 to 3 min: {nat:.0f} s)"
    )
    assert all(run.aws > 0 for run in runs)
