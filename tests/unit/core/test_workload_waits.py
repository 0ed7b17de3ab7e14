"""Workload long polls: a job's wait ends when it has ended (a RayCluster once it runs), a model server's once it is
no longer Loading, an endpoint's once its deployment (or deletion) completed or failed; each answers at once when
it is already there, and otherwise after its timeout, never later than the long-poll bound, saying it is not done."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from controlplane.core.polling import LongPoll
from controlplane.core.workload_waits import WorkloadWaits, deployment_done, endpoint_done, job_done
from controlplane.models.endpoints import EndpointDetail, EndpointKind, EndpointState
from controlplane.models.operations import MAX_WAIT_SECONDS
from controlplane.models.serving import DeploymentDetail, ServiceType
from controlplane.models.training import JobDetail, JobKind, JobPhase
from tests.fakes.persistence import FakeClock

POLL_SECONDS = 2.0


def job(phase: JobPhase, kind: JobKind = JobKind.HYPERPOD_PYTORCH_JOB) -> JobDetail:
    return JobDetail(name="llama", kind=kind, phase=phase, nodes=1, gpusPerNode=1, namespace="ns", pods=[], events=[])


def deployment(status: str) -> DeploymentDetail:
    return DeploymentDetail.model_validate(
        {
            "name": "qwen",
            "serviceType": ServiceType.INTERNAL,
            "engine": "vllm",
            "image": "vllm/vllm-openai",
            "gpus": 1,
            "replicas": 1,
            "readyReplicas": int(status == "Ready"),
            "status": status,
            "port": 8000,
            "namespace": "ns",
            "command": ["vllm", "serve", "Qwen/Qwen2.5-0.5B"],
            "pods": [],
        }
    )


def endpoint(state: EndpointState) -> EndpointDetail:
    return EndpointDetail(
        name="qwen", kind=EndpointKind.INFERENCE_ENDPOINT_CONFIG, state=state, model="m", replicas=1, namespace="ns"
    )


class Reads:
    """A workload service whose `get` answers the given states in turn (the last one from then on)."""

    def __init__(self, *states: Any) -> None:
        self._states: Iterator[Any] = iter(states)
        self._last = None
        self.calls = 0

    def get(self, cluster_tag: str, name: str) -> Any:
        self.calls += 1
        self._last = next(self._states, self._last)
        return self._last


def waits(clock: FakeClock, jobs=None, servers=None, endpoints=None) -> WorkloadWaits:
    return WorkloadWaits(
        jobs=jobs or Reads(),  # type: ignore[arg-type]
        servers=servers or Reads(),  # type: ignore[arg-type]
        endpoints=endpoints or Reads(),  # type: ignore[arg-type]
        poll=LongPoll(clock=clock, every_seconds=POLL_SECONDS),
    )


@pytest.mark.parametrize(
    ("detail", "done"),
    [
        (job(JobPhase.PENDING), False),
        (job(JobPhase.RUNNING), False),
        (job(JobPhase.RESTARTING), False),
        (job(JobPhase.SUCCEEDED), True),
        (job(JobPhase.FAILED), True),
        (job(JobPhase.RUNNING, JobKind.RAY_JOB), False),
        (job(JobPhase.PENDING, JobKind.RAY_CLUSTER), False),
        (job(JobPhase.RUNNING, JobKind.RAY_CLUSTER), True),
    ],
)
def test_a_job_wait_ends_when_the_job_ended_or_a_ray_cluster_runs(detail, done):
    assert job_done(detail) is done


@pytest.mark.parametrize(
    ("status", "done"), [("Loading", False), ("Queued", False), ("Ready", True), ("Scaled to zero", True)]
)
def test_a_model_server_wait_ends_once_it_is_no_longer_loading(status, done):
    assert deployment_done(deployment(status)) is done


@pytest.mark.parametrize(
    ("state", "done"),
    [
        (EndpointState.DEPLOYMENT_PENDING, False),
        (EndpointState.DEPLOYMENT_IN_PROGRESS, False),
        (EndpointState.DEPLOYMENT_COMPLETE, True),
        (EndpointState.DEPLOYMENT_FAILED, True),
        (EndpointState.DELETION_PENDING, False),
        (EndpointState.DELETION_IN_PROGRESS, False),
        (EndpointState.DELETION_COMPLETE, True),
        (EndpointState.DELETION_FAILED, True),
    ],
)
def test_an_endpoint_wait_ends_once_its_deployment_or_deletion_completed_or_failed(state, done):
    assert endpoint_done(endpoint(state)) is done


def test_a_job_wait_answers_as_soon_as_the_job_has_ended(clock):
    jobs = Reads(job(JobPhase.PENDING), job(JobPhase.RUNNING), job(JobPhase.SUCCEEDED))
    waited = waits(clock, jobs=jobs).job("demo", "llama", 20)
    assert (waited.done, waited.job.phase, waited.waitedSeconds) == (True, JobPhase.SUCCEEDED, 2 * POLL_SECONDS)
    assert jobs.calls == 3


def test_a_wait_for_a_workload_already_there_reads_it_once(clock):
    servers = Reads(deployment("Ready"))
    waited = waits(clock, servers=servers).deployment("demo", "qwen", 20)
    assert (waited.done, waited.waitedSeconds, servers.calls) == (True, 0, 1)


def test_a_wait_that_runs_out_answers_with_the_current_state_not_done(clock):
    waited = waits(clock, endpoints=Reads(endpoint(EndpointState.DEPLOYMENT_IN_PROGRESS))).endpoint("demo", "qwen", 7)
    assert (waited.done, waited.endpoint.state) == (False, EndpointState.DEPLOYMENT_IN_PROGRESS)
    assert 7 <= waited.waitedSeconds < 7 + POLL_SECONDS


def test_a_wait_never_holds_the_request_past_the_long_poll_bound(clock):
    waited = waits(clock, jobs=Reads(job(JobPhase.RUNNING))).job("demo", "llama", 3600)
    assert not waited.done
    assert MAX_WAIT_SECONDS <= waited.waitedSeconds < MAX_WAIT_SECONDS + POLL_SECONDS


def test_a_zero_timeout_reads_once_without_waiting(clock):
    jobs = Reads(job(JobPhase.RUNNING), job(JobPhase.SUCCEEDED))
    waited = waits(clock, jobs=jobs).job("demo", "llama", 0)
    assert (waited.done, waited.waitedSeconds, jobs.calls) == (False, 0, 1)
