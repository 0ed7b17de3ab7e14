"""Training jobs: the submit request (one contract for REST, MCP and the console), the job views and its logs.

A `SubmitJobRequest` says what a person decides (image, nodes × GPUs, placement, recovery budget); the manifest
it renders to is built in `controlplane.core.training.manifest`.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StringConstraints, model_validator

from controlplane.models.common import Contract, PageView, View, WorkloadWait
from controlplane.models.governance import TeamWork

# A job's name is a DNS label (its pods are named from it), short enough for the operator's suffixes.
JOB_NAME_PATTERN = r"^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$"
JOB_NAME_RULE = (
    "1-40 characters: a lowercase letter first, then lowercase letters, digits or hyphens; not 'from-recipe'"
)
# `/clusters/{clusterTag}/jobs/from-recipe` submits a recipe, so no job may take that name.
RESERVED_JOB_NAMES = frozenset({"from-recipe"})


def _not_reserved(name: str) -> str:
    if name in RESERVED_JOB_NAMES:
        raise ValueError(f"'{name}' is reserved (POST /clusters/{{clusterTag}}/jobs/{name}); choose another job name")
    return name


JobName = Annotated[str, StringConstraints(pattern=JOB_NAME_PATTERN), AfterValidator(_not_reserved)]
ENV_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"


class JobKind(StrEnum):
    HYPERPOD_PYTORCH_JOB = "HyperPodPyTorchJob"
    RAY_JOB = "RayJob"
    RAY_CLUSTER = "RayCluster"


RAY_KINDS = frozenset({JobKind.RAY_JOB, JobKind.RAY_CLUSTER})
# What only the HyperPod training operator reads: refused on the KubeRay path rather than silently dropped.
HYPERPOD_ONLY_FIELDS = ("runPolicy", "logMonitoring", "elastic", "tieredCheckpointing")


class JobPhase(StrEnum):
    QUEUED = "Queued"  # held by Kueue (task governance) until its team's quota has room
    PENDING = "Pending"
    RUNNING = "Running"
    RESTARTING = "Restarting"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"


TERMINAL_PHASES = frozenset({JobPhase.SUCCEEDED, JobPhase.FAILED})


class RestartPolicy(Contract):
    """In-place restarts of the failed process, then full job restarts."""

    numRestartBeforeFullJobRestart: int = Field(
        default=3, ge=0, le=100, description="In-place restarts before a full job restart."
    )
    evalPeriodSeconds: int = Field(default=21600, ge=60, description="Window in which restarts are counted.")
    maxFullJobRestarts: int = Field(default=1, ge=0, le=100, description="Before the job fails.")


class RunPolicy(Contract):
    """The job's recovery budget."""

    jobMaxRetryCount: int = Field(default=5, ge=0, le=1000, description="Retries of the job before it fails.")
    restartPolicy: RestartPolicy = Field(default_factory=RestartPolicy)
    cleanPodPolicy: Literal["All", "OnlyComplete", "None"] = Field(
        default="None",
        description="Pods deleted when the job ends. None keeps them and their logs until the job is deleted; All "
        "deletes them, logs too.",
    )


class LogMonitoringRule(Contract):
    """A hang rule (a log pattern expected in time) or an outlier rule (a metric from the log against a
    threshold)."""

    name: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9-]{1,63}$")]
    logPattern: str = Field(min_length=1, max_length=1024, description="Regex; a metric is its first group.")
    expectedStartCutOffInSeconds: int | None = Field(default=None, ge=0)
    expectedRecurringFrequencyInSeconds: int | None = Field(default=None, ge=0, description="Hang detection.")
    metricThreshold: int | None = Field(default=None, description="Outlier detection, with operator.")
    operator: Literal["gt", "lt", "eq", "gteq", "lteq"] | None = None
    metricEvaluationDataPoints: int | None = Field(default=None, ge=1)


class ElasticPolicy(Contract):
    """Elastic training: the job runs on between minReplicas and maxReplicas nodes."""

    minReplicas: int = Field(ge=1, le=1000)
    maxReplicas: int = Field(ge=1, le=1000)

    @model_validator(mode="after")
    def _ordered(self) -> ElasticPolicy:
        if self.minReplicas > self.maxReplicas:
            raise ValueError("elastic.minReplicas must not exceed elastic.maxReplicas")
        return self


class RayOptions(Contract):
    """What only the KubeRay path reads (kind RayJob or RayCluster)."""

    rayVersion: Annotated[str, StringConstraints(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")] = Field(
        default="2.46.0", description="The image's Ray version."
    )
    runtimeEnv: dict[str, Any] = Field(
        default_factory=dict,
        max_length=20,
        description="RayJob: Ray's runtime_env (pip, env_vars, working_dir, …).",
    )
    shutdownAfterJobFinishes: bool = Field(
        default=True, description="RayJob: delete the Ray cluster when the job ends."
    )
    ttlSecondsAfterFinished: int = Field(
        default=0, ge=0, le=604800, description="RayJob: seconds to keep the finished Ray cluster."
    )


class SubmitJobRequest(TeamWork):
    """A training job of `kind`: `nodes` pods, one per node, each with `gpusPerNode` GPUs, on one instance type or
    instance group, with the cluster's S3 claim at /s3 (and FSx at /fsx when the cluster has it).

    HyperPodPyTorchJob (the default) runs `command` in every pod under the HyperPod training operator's recovery
    budget. RayJob and RayCluster take the KubeRay path: a head pod and `nodes - 1` worker pods (each with
    `gpusPerNode` GPUs); a RayJob submits `command` as its entrypoint once the Ray cluster is up, a RayCluster
    stays up until deleted. `ray` holds the Ray-only options."""

    name: JobName = Field(description=f"Unique in the cluster ({JOB_NAME_RULE}).")
    kind: JobKind = Field(
        default=JobKind.HYPERPOD_PYTORCH_JOB,
        description="RayJob and RayCluster run on KubeRay.",
    )
    image: str = Field(
        min_length=1,
        max_length=512,
        description="HyperPodPyTorchJob: runs `hyperpodrun`; Ray kinds: has Ray.",
    )
    command: list[Annotated[str, StringConstraints(max_length=4096)]] = Field(
        default_factory=list,
        max_length=64,
        description="HyperPodPyTorchJob: the entrypoint (empty: the image's). RayJob: the entrypoint argv (required).",
    )
    args: list[Annotated[str, StringConstraints(max_length=4096)]] = Field(default_factory=list, max_length=256)
    nodes: int = Field(default=1, ge=1, le=1000, description="One pod per node.")
    gpusPerNode: int = Field(default=1, ge=0, le=64, description="GPUs per pod.")
    instanceType: str | None = None
    instanceGroup: str | None = None
    efa: bool = Field(default=False, description="Request every EFA interface.")
    deepHealthCheckedOnly: bool = False
    sharedMemoryGi: int = Field(default=64, ge=1, le=2048, description="Size of /dev/shm.")
    environment: dict[Annotated[str, StringConstraints(pattern=ENV_NAME_PATTERN)], str] = Field(
        default_factory=dict, max_length=100
    )
    runPolicy: RunPolicy = Field(default_factory=RunPolicy)
    logMonitoring: list[LogMonitoringRule] = Field(default_factory=list, max_length=20)
    elastic: ElasticPolicy | None = Field(default=None, description="Not on spot capacity.")
    tieredCheckpointing: bool = Field(default=False, description="Not with elastic.")
    ray: RayOptions | None = Field(default=None, description="Ray kinds only.")

    @model_validator(mode="after")
    def _placement(self) -> SubmitJobRequest:
        if self.instanceType is None and self.instanceGroup is None:
            raise ValueError("give instanceType or instanceGroup: where the job's pods run")
        if self.instanceType is not None and self.instanceGroup is not None:
            raise ValueError("give instanceType or instanceGroup, not both")
        return self

    @model_validator(mode="after")
    def _fields_of_the_kind(self) -> SubmitJobRequest:
        if self.kind not in RAY_KINDS:
            if self.ray is not None:
                raise ValueError(f"`ray` is for kinds RayJob and RayCluster, not {self.kind.value}; drop it")
            return self
        defaults = SubmitJobRequest.model_construct()
        given = [name for name in HYPERPOD_ONLY_FIELDS if getattr(self, name) != getattr(defaults, name)]
        if given:
            raise ValueError(
                f"{', '.join(given)}: HyperPodPyTorchJob only (the HyperPod training operator reads them); leave "
                f"them out for kind {self.kind.value}"
            )
        if self.kind == JobKind.RAY_JOB and not self.command:
            raise ValueError("a RayJob needs `command`: its entrypoint (e.g. python3 -m verl.trainer.main_ppo …)")
        if self.kind == JobKind.RAY_CLUSTER and (self.command or self.args):
            raise ValueError("a RayCluster runs no entrypoint: drop `command` and `args`, or use kind RayJob")
        return self

    @property
    def ray_options(self) -> RayOptions:
        """The Ray options given, else their defaults."""
        return self.ray or RayOptions()


class RestartBudget(View):
    """Restarts used against the budget of the job's run policy."""

    restarts: int = Field(description="In-place restarts so far (status.restartCount).")
    restartsBeforeFullJobRestart: int
    fullJobRestarts: int = Field(description="Full job restarts so far.")
    maxFullJobRestarts: int
    jobMaxRetryCount: int


class JobPod(View):
    name: str
    node: str | None = None
    phase: str
    restarts: int = 0


class JobEvent(View):
    type: str | None = None
    reason: str | None = None
    message: str | None = None
    at: str | None = None


class JobSummary(View):
    name: str
    namespace: str | None = Field(default=None, description="The claim's, or a team's hyperpod-ns-<team>.")
    kind: JobKind
    phase: JobPhase
    nodes: int
    gpusPerNode: int
    restartBudget: RestartBudget | None = Field(
        default=None, description="HyperPodPyTorchJob only: KubeRay has no HyperPod recovery budget."
    )
    createdAt: datetime | None = None
    waitingReason: str | None = Field(default=None, description="Queued: why Kueue has not admitted it yet.")


class JobDetail(JobSummary):
    namespace: str  # type: ignore[assignment]  # always known once the job is read
    image: str | None = None
    pods: list[JobPod]
    events: list[JobEvent] = Field(description="The last events of the job, newest last.")


class JobWait(WorkloadWait):
    """Done at Succeeded or Failed (a RayCluster, which runs until deleted: once Running)."""

    job: JobDetail


class JobList(PageView):
    clusterTag: str
    jobs: list[JobSummary]


class JobLogs(View):
    jobName: str
    pod: str
    pods: list[str] = Field(description="The job's pods; pass one as `pod` to read its log.")
    lines: list[str]
    note: str | None = Field(default=None, description="Why there is no log to read, when there is none.")
