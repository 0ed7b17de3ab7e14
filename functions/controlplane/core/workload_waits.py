"""Long polls for workloads — a training job, a model server, a managed endpoint: when each wait ends.

A wait ends where an agent's next step begins: a job that finished or failed (a RayCluster, which runs until deleted,
once it runs), a model server that is neither Loading nor Queued, an endpoint whose deployment completed or failed
(or, after a delete, whose deletion did). Each wait holds the request at most `MAX_WAIT_SECONDS`
(`core.polling.LongPoll`) and answers with the workload as it read it last, saying whether it is done. Not here:
reading the workloads (their services) or the operation wait (`core.operations`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controlplane.models.endpoints import EndpointDetail, EndpointState, EndpointWait
from controlplane.models.serving import DeploymentDetail, DeploymentWait
from controlplane.models.training import TERMINAL_PHASES, JobDetail, JobKind, JobPhase, JobWait

if TYPE_CHECKING:
    from controlplane.core.endpoints.service import EndpointService
    from controlplane.core.polling import LongPoll
    from controlplane.core.serving.service import ModelServerService
    from controlplane.core.training.service import TrainingJobService

SETTLED_ENDPOINT_STATES = frozenset(
    {
        EndpointState.DEPLOYMENT_COMPLETE,
        EndpointState.DEPLOYMENT_FAILED,
        EndpointState.DELETION_COMPLETE,
        EndpointState.DELETION_FAILED,
    }
)


def job_done(job: JobDetail) -> bool:
    return job.phase in TERMINAL_PHASES or (job.kind == JobKind.RAY_CLUSTER and job.phase == JobPhase.RUNNING)


def deployment_done(deployment: DeploymentDetail) -> bool:
    return deployment.status not in ("Loading", "Queued")


def endpoint_done(endpoint: EndpointDetail) -> bool:
    return endpoint.state in SETTLED_ENDPOINT_STATES


class WorkloadWaits:
    def __init__(
        self,
        jobs: TrainingJobService,
        servers: ModelServerService,
        endpoints: EndpointService,
        poll: LongPoll,
    ) -> None:
        self._jobs = jobs
        self._servers = servers
        self._endpoints = endpoints
        self._poll = poll

    def job(self, cluster_tag: str, name: str, timeout_seconds: float) -> JobWait:
        started = self._now()
        job = self._poll.until(lambda: self._jobs.get(cluster_tag, name), job_done, timeout_seconds)
        return JobWait(done=job_done(job), waitedSeconds=self._since(started), job=job)

    def deployment(self, cluster_tag: str, name: str, timeout_seconds: float) -> DeploymentWait:
        started = self._now()
        deployment = self._poll.until(lambda: self._servers.get(cluster_tag, name), deployment_done, timeout_seconds)
        return DeploymentWait(
            done=deployment_done(deployment), waitedSeconds=self._since(started), deployment=deployment
        )

    def endpoint(self, cluster_tag: str, name: str, timeout_seconds: float) -> EndpointWait:
        started = self._now()
        endpoint = self._poll.until(lambda: self._endpoints.get(cluster_tag, name), endpoint_done, timeout_seconds)
        return EndpointWait(done=endpoint_done(endpoint), waitedSeconds=self._since(started), endpoint=endpoint)

    def _now(self) -> float:
        return self._poll.clock.now().timestamp()

    def _since(self, started: float) -> float:
        return round(self._now() - started, 2)
