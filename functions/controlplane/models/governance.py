"""Task governance contracts: a team's compute quota on a cluster (what it is guaranteed per instance type and how it
lends and borrows), the cluster's scheduler policy (priority classes, fair share), and the teams view. The names
Kueue reads are built here: a team's namespace `hyperpod-ns-<team>`, local queue `hyperpod-ns-<team>-localqueue` and
cluster queue `hyperpod-ns-<team>-clusterqueue`,
a priority class's label `<name>-priority` [src: aws/sagemaker-hyperpod-cli; doc: HyperPod task governance]."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from controlplane.models.common import Contract, View

TEAM_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
MAX_TEAM_LENGTH = 40
TEAM_NAMESPACE_PREFIX = "hyperpod-ns-"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"

Sharing = Literal["Lend", "DontLend", "LendAndBorrow"]


def team_namespace(team: str) -> str:
    return f"{TEAM_NAMESPACE_PREFIX}{team}"


def team_queue(team: str) -> str:
    return f"{team_namespace(team)}-localqueue"


def team_cluster_queue(team: str) -> str:
    return f"{team_namespace(team)}-clusterqueue"


def priority_label(priority: str) -> str:
    return f"{priority}-priority"


class TeamWork(Contract):
    """A workload's team and priority: it runs in the team's namespace, labelled for the team's Kueue queue."""

    # No pattern: a name not among the teams (or the policy's classes) is refused with the list to choose from.
    team: str | None = Field(default=None, max_length=MAX_TEAM_LENGTH)
    priority: str | None = Field(default=None, max_length=MAX_TEAM_LENGTH, description="Needs team.")

    @model_validator(mode="after")
    def _priority_needs_team(self) -> TeamWork:
        if self.priority is not None and self.team is None:
            raise ValueError("`priority` needs `team`: name the team whose queue orders the work by it")
        return self


class InstanceAllocation(Contract):
    instanceType: str = Field(pattern=r"^ml\.[a-z0-9-]+\.[a-z0-9]+$")
    count: int = Field(ge=1, le=10000, description="Instances guaranteed.")


class CreateTeamQuotaRequest(Contract):
    """A team and its compute quota (CreateComputeQuota)."""

    team: str = Field(
        min_length=1,
        max_length=MAX_TEAM_LENGTH,
        pattern=TEAM_PATTERN,
        description="Its namespace: hyperpod-ns-<team>.",
    )
    allocations: list[InstanceAllocation] = Field(min_length=1, max_length=20)
    sharing: Sharing = "LendAndBorrow"
    borrowLimit: int | None = Field(default=None, ge=1, le=500, description="% of its quota it may borrow.")
    preemptTeamTasks: Literal["Never", "LowerPriority"] = "LowerPriority"
    fairShareWeight: int | None = Field(default=None, ge=0, le=100)


class UpdateTeamQuotaRequest(Contract):
    """Only the fields to change (UpdateComputeQuota); absent ones stay."""

    allocations: list[InstanceAllocation] | None = Field(default=None, min_length=1, max_length=20)
    sharing: Sharing | None = None
    borrowLimit: int | None = Field(default=None, ge=1, le=500)
    preemptTeamTasks: Literal["Never", "LowerPriority"] | None = None
    fairShareWeight: int | None = Field(default=None, ge=0, le=100)
    active: bool | None = Field(default=None, description="false suspends the quota.")

    @model_validator(mode="after")
    def _touches_something(self) -> UpdateTeamQuotaRequest:
        if not self.model_fields_set:
            raise ValueError("name at least one field to change, e.g. allocations")
        return self


class PriorityClass(Contract):
    name: str = Field(min_length=1, max_length=MAX_TEAM_LENGTH, pattern=TEAM_PATTERN)
    weight: int = Field(ge=0, le=100, description="Higher first.")


class SchedulerPolicyRequest(Contract):
    """The cluster's scheduler config (CreateClusterSchedulerConfig / Update): priority classes and fair share."""

    priorityClasses: list[PriorityClass] = Field(min_length=1, max_length=20)
    fairShare: bool = True
    idleResourceSharing: bool = Field(default=True, description="Teams may borrow idle capacity.")

    @model_validator(mode="after")
    def _names_unique(self) -> SchedulerPolicyRequest:
        names = [priority.name for priority in self.priorityClasses]
        if len(names) != len(set(names)):
            raise ValueError("priorityClasses: each name once")
        return self


class SchedulerPolicyView(View):
    priorityClasses: list[PriorityClass]
    fairShare: bool
    idleResourceSharing: bool
    status: str
    version: int


class TeamNamespacePlan(View):
    """What a team's namespace gets so that workloads run there as in the cluster's job namespace: a copy of each
    storage claim (`<namespace>/<claim>` of the cluster's record) bound to the same bucket or file system, and, when
    the job namespace has the jobs' ServiceAccount with a pod identity association, the same in the team's."""

    team: str
    namespace: str
    claims: list[str] = Field(description="The cluster's claims to copy, each `<namespace>/<claim>`.")
    jobNamespace: str = Field(description="Where the jobs' ServiceAccount the team's copies is.")
    jobsRole: str = Field(description="The jobs role (the trainingOperator feature's) the copied association names.")


class QueueResourceUse(View):
    """What a team's admitted work uses of one resource on one instance type (Kueue's ClusterQueue usage)."""

    instanceType: str
    resource: str = Field(description="e.g. nvidia.com/gpu, cpu.")
    inUse: str
    borrowed: str = Field(description="Of inUse, borrowed from other teams' idle quota.")


class QueuedWork(View):
    """A job of the team's, or a pod of its model server (kind Pod), that Kueue has not admitted, and why it waits
    (Kueue's own words)."""

    name: str
    kind: str
    priorityClass: str | None = None
    reason: str | None = Field(default=None, description="Pending: no room yet; Inadmissible: cannot run as is.")
    message: str | None = None
    since: str | None = None


class TeamView(View):
    team: str
    namespace: str
    namespaceReady: bool | None = Field(default=None, description="Workloads can run in it; null: not read.")
    namespaceMissing: list[str] = Field(default_factory=list, description="What the namespace lacks.")
    namespaceOperationId: str | None = Field(default=None, description="The namespace operation this call started.")
    localQueue: str
    quotaId: str
    status: str
    active: bool
    allocations: list[InstanceAllocation]
    sharing: Sharing
    borrowLimit: int | None = None
    preemptTeamTasks: str
    fairShareWeight: int | None = None
    inUse: list[QueueResourceUse] = Field(default_factory=list, description="What its admitted jobs use now.")
    admittedWorkloads: int | None = Field(default=0, description="null: not read (`queueUnknown` says why).")
    queued: list[QueuedWork] = Field(default_factory=list, description="Its jobs waiting for quota, oldest first.")
    queueUnknown: str | None = Field(
        default=None, description="Why inUse, admittedWorkloads and queued were not read (then empty); null: read."
    )


class TeamsView(View):
    """Each team's quota, and the cluster's capacity per instance type (its groups' counts) with what is allocated."""

    clusterTag: str
    teams: list[TeamView]
    capacity: dict[str, int] = Field(description="Instances per type: the sum of the instance groups' counts.")
    allocated: dict[str, int] = Field(description="Instances per type the teams' quotas guarantee.")
    schedulerPolicy: SchedulerPolicyView | None = Field(default=None, description="None: no scheduler config yet.")
