"""A cluster's teams: each a compute quota (SageMaker) whose namespace and queue the task governance add-on makes;
the teams view also shows the cluster's scheduler policy (`scheduler`).

Creating a quota is checked first: the add-on is installed, the team is new, each instance type is one of the
cluster's, and the quotas of every team together stay within the cluster's capacity (its instance groups' counts per
type). Deleting one is planned first and needs the plan's confirmation token: the team's queued work stays queued
without a quota. Creating a team starts the operation that prepares its namespace for workloads before the quota, so
that a team is created with it or not at all; deleting one starts the operation that undoes it (`namespace`) before
the quota goes. Each team's view says whether its namespace is ready.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from controlplane.core.auth import Actor
from controlplane.core.concurrency import each, together
from controlplane.core.confirmations import Confirmations, fingerprint
from controlplane.core.features.required import require_addon_feature
from controlplane.core.governance.capacity import allocated, capacity, refuse_over_capacity
from controlplane.core.governance.namespace import TeamNamespaces
from controlplane.core.governance.queues import TeamQueue, TeamQueueReader
from controlplane.core.naming import Deployment, hyperpod_cluster_of, ownership_tags
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.governance import (
    ComputeQuota,
    ComputeQuotaSpec,
    GovernanceGateway,
    QuotaAllocation,
    SchedulerConfig,
)
from controlplane.core.ports.hyperpod import HyperPodCluster, HyperPodGateway
from controlplane.core.registry import ClusterService
from controlplane.core.team_targets import TeamNotFoundError
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction, StageName
from controlplane.models.errors import (
    ClusterBusyError,
    ClusterNotReadyError,
    ConflictError,
    DependencyFailedError,
    DomainError,
    WorkflowStartRefusedError,
)
from controlplane.models.features import Feature
from controlplane.models.governance import (
    CreateTeamQuotaRequest,
    InstanceAllocation,
    PriorityClass,
    SchedulerPolicyView,
    TeamsView,
    TeamView,
    UpdateTeamQuotaRequest,
    team_namespace,
    team_queue,
)
from controlplane.models.operations import Operation

_log = logging.getLogger(__name__)


class TeamExistsError(ConflictError):
    code = "TeamExists"


class ClusterReader:
    """A registered cluster with its live HyperPod cluster, which task governance works on."""

    def __init__(self, clusters: ClusterService, hyperpod: Callable[[str], HyperPodGateway]) -> None:
        self._clusters = clusters
        self._hyperpod = hyperpod

    def __call__(self, cluster_tag: str) -> tuple[ClusterRecord, HyperPodCluster]:
        record = self._clusters.get(cluster_tag)
        cluster = None
        if StageName.HYPERPOD.value in record.stagesDone:
            name = hyperpod_cluster_of(cluster_tag, record.hyperPodClusterName)
            cluster = self._hyperpod(record.region).find_cluster(name)
        if cluster is None:
            raise ClusterNotReadyError(f"Cluster '{cluster_tag}' has no HyperPod cluster yet; finish stage 4 first.")
        return record, cluster


class TeamService:
    def __init__(
        self,
        cluster: ClusterReader,
        confirmations: Confirmations,
        deployment: Deployment,
        governance: Callable[[str], GovernanceGateway],
        eks: Callable[[str], EksGateway],
        namespaces: TeamNamespaces,
        queues: TeamQueueReader,
    ) -> None:
        self._cluster = cluster
        self._confirmations = confirmations
        self._deployment = deployment
        self._governance = governance
        self._eks = eks
        self._namespaces = namespaces
        self._queues = queues

    def teams(self, cluster_tag: str) -> TeamsView:
        """Each team's quota with what its queue holds now (Kueue's usage and waiting jobs)."""
        record, cluster = self._cluster(cluster_tag)
        gateway = self._governance(record.region)
        quotas, scheduler = together(lambda: gateway.quotas(cluster.arn), lambda: gateway.scheduler_config(cluster.arn))
        queues = self._queues(record, [quota.spec.team for quota in quotas]) if quotas else {}
        views = [_view(quota, queues.get(quota.spec.team)) for quota in sorted(quotas, key=lambda q: q.spec.team)]
        return TeamsView(
            clusterTag=cluster_tag,
            teams=each(lambda view: self._with_readiness(record, view), views),
            capacity=dict(capacity(cluster)),
            allocated=dict(allocated(quotas)),
            schedulerPolicy=policy_view(scheduler) if scheduler is not None else None,
        )

    def team(self, cluster_tag: str, team: str) -> TeamView:
        """The team's quota as plans fingerprint it (not its namespace's readiness, which a plan may outlive)."""
        record, cluster = self._cluster(cluster_tag)
        quotas = self._governance(record.region).quotas(cluster.arn)
        found = next((quota for quota in quotas if quota.spec.team == team), None)
        if found is None:
            raise _unknown(cluster_tag, team, [quota.spec.team for quota in quotas])
        return _view(found)

    def create(self, cluster_tag: str, request: CreateTeamQuotaRequest, actor: Actor) -> TeamView:
        """Once every check passes, the operation that prepares the team's namespace (it waits for the namespace the
        quota brings), then CreateComputeQuota; nothing is created when either is refused: the operation by the
        cluster's lock (409 naming the running operation) or by Step Functions (503, retry), the quota by SageMaker
        (the operation is cancelled)."""
        record, cluster = self._cluster(cluster_tag)
        require_addon_feature(
            self._eks(record.region),
            cluster_tag,
            record.eksClusterName,
            Feature.TASK_GOVERNANCE,
            needs="A team's compute quota needs",
            addon="its add-on",
            then=", then create the team again",
        )
        gateway = self._governance(record.region)
        quotas = gateway.quotas(cluster.arn)
        if any(quota.spec.team == request.team for quota in quotas):
            raise TeamExistsError(
                f"Team '{request.team}' already has a compute quota on '{cluster_tag}'; choose another name, or "
                f"delete its quota first (DELETE /clusters/{cluster_tag}/teams/{request.team}).",
                {"team": request.team},
            )
        refuse_over_capacity(cluster_tag, request.allocations, capacity(cluster), allocated(quotas))
        spec = ComputeQuotaSpec(
            name=f"{cluster_tag}-{request.team}"[:63],
            team=request.team,
            allocations=tuple(QuotaAllocation(a.instanceType, a.count) for a in request.allocations),
            sharing=request.sharing,
            borrow_limit=request.borrowLimit,
            preempt=request.preemptTeamTasks,
            fair_share_weight=request.fairShareWeight,
        )
        again = f"POST /clusters/{cluster_tag}/teams"
        operation = self._started(
            request.team, "created", again, lambda: self._namespaces.prepare(record, request.team, actor)
        )
        try:
            quota_id = gateway.create_quota(cluster.arn, spec, ownership_tags(self._deployment, cluster_tag))
        except Exception as error:
            uncancelled = self._cancelled(operation, actor)
            if uncancelled and isinstance(error, DomainError):
                error.details["namespaceOperation"] = uncancelled
            raise
        view = _view(ComputeQuota(quota_id, spec, "Creating", 1, True))
        return view.model_copy(
            update={"namespaceReady": False, "namespaceOperationId": operation.operationId, "namespaceMissing": []}
        )

    def prepare_namespace(self, cluster_tag: str, team: str, actor: Actor) -> Operation:
        """Prepare the team's namespace again (after its operation failed, or the cluster's storage or jobs identity
        changed); every step is level-triggered."""
        self.team(cluster_tag, team)
        return self._namespaces.prepare(self._cluster(cluster_tag)[0], team, actor)

    def plan_update(self, cluster_tag: str, team: str, request: UpdateTeamQuotaRequest, actor: Actor) -> Plan:
        """The checked change and the token that confirms it (the team's jobs may be requeued or preempted)."""
        quota, spec = self._updated(cluster_tag, team, request)
        token, expires_at = self._confirmations.issue(
            actor, "update-team", f"{cluster_tag}/{team}", fingerprint([request, _view(quota)])
        )
        return Plan(
            actions=[PlannedAction(action="update", resource="compute quota", name=quota.quota_id, detail=_sum(spec))],
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Changes team '{team}''s compute quota on '{cluster_tag}'; its running jobs may be preempted. "
            "Ask the person to confirm, then repeat the request with confirmationToken.",
        )

    def update(
        self, cluster_tag: str, team: str, request: UpdateTeamQuotaRequest, token: str, actor: Actor
    ) -> TeamView:
        quota, spec = self._updated(cluster_tag, team, request)
        active = quota.active if request.active is None else request.active
        record, _ = self._cluster(cluster_tag)
        with self._confirmations.redeeming(
            token,
            actor,
            "update-team",
            f"{cluster_tag}/{team}",
            f"Repeat PATCH /clusters/{cluster_tag}/teams/{team} without a token",
            fingerprint([request, _view(quota)]),
        ):
            self._governance(record.region).update_quota(quota.quota_id, quota.version, spec, active)
        return _view(ComputeQuota(quota.quota_id, spec, "Updating", quota.version + 1, active))

    def _updated(
        self, cluster_tag: str, team: str, request: UpdateTeamQuotaRequest
    ) -> tuple[ComputeQuota, ComputeQuotaSpec]:
        """The team's live quota and its spec with the request applied, within the cluster's capacity."""
        record, cluster = self._cluster(cluster_tag)
        quotas = self._governance(record.region).quotas(cluster.arn)
        quota = next((found for found in quotas if found.spec.team == team), None)
        if quota is None:
            raise _unknown(cluster_tag, team, [found.spec.team for found in quotas])
        spec = quota.spec
        touched = request.model_fields_set
        allocations = spec.allocations
        if request.allocations is not None:
            others = allocated([found for found in quotas if found.spec.team != team])
            refuse_over_capacity(cluster_tag, request.allocations, capacity(cluster), others)
            allocations = tuple(QuotaAllocation(a.instanceType, a.count) for a in request.allocations)
        return quota, replace(
            spec,
            allocations=allocations,
            sharing=request.sharing or spec.sharing,
            borrow_limit=request.borrowLimit if "borrowLimit" in touched else spec.borrow_limit,
            preempt=request.preemptTeamTasks or spec.preempt,
            fair_share_weight=request.fairShareWeight if "fairShareWeight" in touched else spec.fair_share_weight,
        )

    def plan_delete(self, cluster_tag: str, team: str, actor: Actor) -> Plan:
        view = self.team(cluster_tag, team)
        token, expires_at = self._confirmations.issue(
            actor, "delete-team", f"{cluster_tag}/{team}", fingerprint([view])
        )
        return Plan(
            actions=[PlannedAction(action="delete", resource="compute quota", name=view.quotaId, detail=team)],
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Deletes team '{team}''s compute quota on '{cluster_tag}': its guaranteed instances go back to "
            "the cluster, and its jobs wait for idle capacity. Ask the person to confirm, then repeat the request "
            "with confirmationToken.",
        )

    def delete(self, cluster_tag: str, team: str, token: str, actor: Actor) -> TeamView:
        view = self.team(cluster_tag, team)
        record, _ = self._cluster(cluster_tag)
        with self._confirmations.redeeming(
            token,
            actor,
            "delete-team",
            f"{cluster_tag}/{team}",
            f"Repeat DELETE /clusters/{cluster_tag}/teams/{team} without a token",
            fingerprint([view]),
        ):
            # The removal starts first: while another operation holds the cluster it is refused (409) with the quota
            # untouched, since once the quota is gone no route reaches the team's namespace copies.
            again = f"DELETE /clusters/{cluster_tag}/teams/{team} with the same confirmationToken"
            operation = self._started(team, "deleted", again, lambda: self._namespaces.remove(record, team, actor))
            try:
                self._governance(record.region).delete_quota(view.quotaId)
            except Exception as error:
                raise _not_deleted(cluster_tag, team, operation, self._cancelled(operation, actor), error) from error
        return view.model_copy(
            update={
                "status": "Deleting",
                "namespaceReady": False,
                "namespaceOperationId": operation.operationId,
                "namespaceMissing": [],
            }
        )

    def _with_readiness(self, record: ClusterRecord, view: TeamView) -> TeamView:
        """The view with its namespace's readiness; unknown (None) while the Kubernetes API is not reachable."""
        try:
            readiness = self._namespaces.readiness(record, view.team)
        except ClusterNotReadyError:
            return view
        return view.model_copy(update={"namespaceReady": readiness.ready, "namespaceMissing": list(readiness.missing)})

    def _cancelled(self, operation: Operation, actor: Actor) -> str | None:
        """Cancel the namespace operation started for a quota change SageMaker then refused; None once cancelled,
        else what stopped the cancel (logged, for the error's details)."""
        try:
            self._namespaces.cancel(operation, actor)
        except Exception as failed:  # noqa: BLE001 - SageMaker's error is the one to report
            _log.warning(
                "team namespace operation not cancelled",
                extra={"operationId": operation.operationId, "error": type(failed).__name__},
            )
            return (
                f"Operation {operation.operationId} was not cancelled ({type(failed).__name__}); cancel it: POST "
                f"/operations/{operation.operationId}/cancel."
            )
        return None

    def _started(self, team: str, done: str, again: str, start: Callable[[], Operation]) -> Operation:
        """The team's namespace operation `start` began, before its quota is created or deleted; when it is refused,
        so is the request as a whole (nothing done), saying when to repeat it (`again`)."""
        try:
            return start()
        except ClusterBusyError as busy:
            raise ClusterBusyError(
                f"Team '{team}' was not {done}: the cluster is busy with operation "
                f"{busy.details.get('activeOperationId')}, and a team's namespace is changed by an operation of its "
                f"own. Wait for that one (operation_wait), then repeat {again}.",
                busy.details,
            ) from busy
        except WorkflowStartRefusedError as refused:
            raise WorkflowStartRefusedError(
                f"Team '{team}' was not {done}: Step Functions refused to start its namespace operation for now "
                f"({refused.details.get('refusal')}). Repeat {again} in {refused.retry_after} s (operation "
                f"{refused.details.get('operationId')}, recorded FAILED, needs no resume).",
                refused.details,
            ) from refused


def policy_view(config: SchedulerConfig) -> SchedulerPolicyView:
    policy = config.policy
    return SchedulerPolicyView(
        priorityClasses=[PriorityClass(name=name, weight=weight) for name, weight in policy.priority_classes],
        fairShare=policy.fair_share,
        idleResourceSharing=policy.idle_sharing,
        status=config.status,
        version=config.version,
    )


def _view(quota: ComputeQuota, queue: TeamQueue | None = None) -> TeamView:
    spec = quota.spec
    queue = queue or TeamQueue()
    return TeamView(
        team=spec.team,
        namespace=team_namespace(spec.team),
        localQueue=team_queue(spec.team),
        quotaId=quota.quota_id,
        status=quota.status,
        active=quota.active,
        allocations=[InstanceAllocation(instanceType=a.instance_type, count=a.count) for a in spec.allocations],
        sharing=spec.sharing,  # type: ignore[arg-type]
        borrowLimit=spec.borrow_limit,
        preemptTeamTasks=spec.preempt,
        fairShareWeight=spec.fair_share_weight,
        inUse=queue.in_use,
        admittedWorkloads=None if queue.unknown else queue.admitted,
        queued=queue.queued,
        queueUnknown=queue.unknown,
    )


def _not_deleted(
    cluster_tag: str, team: str, operation: Operation, uncancelled: str | None, error: Exception
) -> DomainError:
    """SageMaker refused DeleteComputeQuota after the namespace's removal began: the quota stays, and the removal,
    cancelled, may have undone part of the namespace's preparation (the error keeps the refusal's status)."""
    undo = uncancelled or f"Its namespace's removal (operation {operation.operationId}) was cancelled."
    message = (
        f"Team '{team}' was not deleted: SageMaker refused to delete its compute quota ({error}), so the quota "
        f"stays. {undo} The namespace may lack part of its preparation now: prepare it again with "
        f"POST /clusters/{cluster_tag}/teams/{team}/namespace, or repeat DELETE /clusters/{cluster_tag}/teams/"
        f"{team} with the same confirmationToken."
    )
    if isinstance(error, DomainError):
        return type(error)(message, {**error.details, "namespaceOperationId": operation.operationId})
    return DependencyFailedError(message, {"namespaceOperationId": operation.operationId})


def _unknown(cluster_tag: str, team: str, teams: list[str]) -> TeamNotFoundError:
    return TeamNotFoundError(
        f"Team '{team}' has no compute quota on '{cluster_tag}' (teams: {', '.join(sorted(teams)) or 'none yet'}); "
        f"create it with POST /clusters/{cluster_tag}/teams.",
        {"teams": sorted(teams)},
    )


def _sum(spec: ComputeQuotaSpec) -> str:
    guaranteed = ", ".join(f"{a.count} x {a.instance_type}" for a in spec.allocations)
    return f"{guaranteed}; {spec.sharing}"
