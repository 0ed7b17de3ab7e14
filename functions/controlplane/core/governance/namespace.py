"""A team's namespace made ready for workloads, as an operation (`prepare_team_namespace`) that creating a team
starts, and undone by the one deleting it starts (`remove_team_namespace`).

The task governance add-on makes `hyperpod-ns-<team>` when the team's quota is created, and owns it: the control
plane never creates or deletes it. A pod there can neither mount the cluster's claims (a claim is namespaced) nor use
the jobs' ServiceAccount of the job namespace, so the preparation copies both (`team_objects`): each storage claim as a
static PV and its claim on the same bucket or file system, and, when the job namespace's ServiceAccount has a pod
identity association (the trainingOperator feature's jobs role), the ServiceAccount and an association to the same
role, whose trust admits team namespaces (`core.features.job_identity.job_trust`). Removal deletes exactly what the
preparation labelled or tagged as the team's.

`namespace_ready` is what a workload's submission asks before it uses the namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controlplane.core import deadlines
from controlplane.core.auth import Actor
from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.features.job_identity import job_trust
from controlplane.core.governance.team_objects import (
    claim_name,
    is_team_object,
    team_claim_objects,
    team_claim_references,
    team_secret_reader,
    team_service_account,
)
from controlplane.core.naming import JOB_SERVICE_ACCOUNT, Deployment, job_namespace, job_role_name, ownership_tags
from controlplane.core.operations.service import OperationService
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.core.team_targets import TeamNamespaceNotReadyError
from controlplane.models.clusters import ClusterRecord, Plan
from controlplane.models.errors import ClusterNotReadyError, ForeignResourceError
from controlplane.models.governance import TeamNamespacePlan, team_namespace
from controlplane.models.operations import Operation, OperationKind
from controlplane.models.workflow import PollState, TeamNamespaceInput


@dataclass(frozen=True)
class NamespaceReadiness:
    namespace: str
    missing: tuple[str, ...]

    @property
    def ready(self) -> bool:
        return not self.missing


def team_plan(deployment: Deployment, record: ClusterRecord, team: str) -> TeamNamespacePlan:
    """What the team's namespace copies from the cluster as its record describes it now."""
    claims = [claim for claim in (record.storageClaim, record.fsxClaim) if claim]
    return TeamNamespacePlan(
        team=team,
        namespace=team_namespace(team),
        claims=[f"{namespace}/{name}" for namespace, name in map(claim_name, claims)],
        jobNamespace=job_namespace(record.storageClaim),
        jobsRole=job_role_name(deployment, record.clusterTag),
    )


def namespace_ready(
    eks: EksGateway, kubernetes: KubernetesGateway, cluster: EksCluster, region: str, plan: TeamNamespacePlan
) -> NamespaceReadiness:
    """What the team's namespace lacks, if anything, for a workload to run there as in the job namespace: the
    namespace, each claim bound, the jobs' ServiceAccount and its association (when the job namespace has them)."""
    ns = plan.namespace
    if kubernetes.get(cluster, region, "v1", "Namespace", ns) is None:
        return NamespaceReadiness(ns, (f"namespace {ns} (the task governance add-on makes it with the quota)",))
    missing = []
    for source in plan.claims:
        _, claim = claim_name(source)
        found = kubernetes.get(cluster, region, "v1", "PersistentVolumeClaim", claim, ns)
        phase = ((found or {}).get("status") or {}).get("phase")
        if found is None or phase != "Bound":
            missing.append(f"claim {ns}/{claim}" + (f" ({phase or 'Pending'})" if found is not None else ""))
    if _role_name(eks.pod_identity_role(cluster.name, plan.jobNamespace, JOB_SERVICE_ACCOUNT)) == plan.jobsRole:
        if kubernetes.get(cluster, region, "v1", "ServiceAccount", JOB_SERVICE_ACCOUNT, ns) is None:
            missing.append(f"ServiceAccount {ns}/{JOB_SERVICE_ACCOUNT}")
        if eks.pod_identity_role(cluster.name, ns, JOB_SERVICE_ACCOUNT) is None:
            missing.append(f"pod identity association {ns}/{JOB_SERVICE_ACCOUNT}")
    return NamespaceReadiness(ns, tuple(missing))


def require_ready(readiness: NamespaceReadiness, cluster_tag: str, team: str) -> None:
    """TeamNamespaceNotReadyError, saying what is missing and how to prepare it, unless the namespace is ready."""
    if not readiness.ready:
        raise TeamNamespaceNotReadyError(
            f"Team '{team}''s namespace {readiness.namespace} is not ready for workloads: it lacks "
            f"{'; '.join(readiness.missing)}. Wait for the team's prepare_team_namespace operation, or start it again: "
            f"POST /clusters/{cluster_tag}/teams/{team}/namespace.",
            {"namespace": readiness.namespace, "missing": list(readiness.missing)},
        )


class TeamNamespaces:
    """The API's side: a team namespace's readiness as the view and a submission read it (the Kubernetes API through
    the view role), and the operations that prepare it and undo that."""

    def __init__(
        self,
        operations: OperationService,
        eks: Callable[[str], EksGateway],
        kubernetes: KubernetesGateway,
        deployment: Deployment,
    ) -> None:
        self._operations = operations
        self._eks = eks
        self._kubernetes = kubernetes
        self._deployment = deployment

    def readiness(self, record: ClusterRecord, team: str) -> NamespaceReadiness:
        eks = self._eks(record.region)
        cluster = reachable_control_plane(eks, record.eksClusterName, record.clusterTag)
        return namespace_ready(eks, self._kubernetes, cluster, record.region, team_plan(self._deployment, record, team))

    def require_ready(self, record: ClusterRecord, team: str) -> None:
        """For a workload's submission into the team's namespace: TeamNamespaceNotReadyError unless it is ready."""
        require_ready(self.readiness(record, team), record.clusterTag, team)

    def prepare(self, record: ClusterRecord, team: str, actor: Actor) -> Operation:
        plan = team_plan(self._deployment, record, team)
        return self._operations.start(record, actor, OperationKind.PREPARE_TEAM_NAMESPACE, team=plan)

    def cancel(self, operation: Operation, actor: Actor) -> None:
        """Stop a preparation whose team was not created after all (its lock is released)."""
        self._operations.cancel(operation.operationId, actor)

    def remove(self, record: ClusterRecord, team: str, actor: Actor) -> Operation:
        plan = team_plan(self._deployment, record, team)
        return self._operations.start(record, actor, OperationKind.REMOVE_TEAM_NAMESPACE, team=plan)

    resumes = frozenset({OperationKind.PREPARE_TEAM_NAMESPACE, OperationKind.REMOVE_TEAM_NAMESPACE})

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        """Nothing to recheck: both workflows read the cluster as it is, and the namespace is the add-on's."""
        return Plan(actions=[])


class TeamNamespaceSteps:
    def __init__(
        self, eks: EksGateway, kubernetes: KubernetesGateway, iam: IamGateway, poller: Poller, deployment: Deployment
    ) -> None:
        self._eks = eks
        self._kubernetes = kubernetes
        self._iam = iam
        self._poller = poller
        self._deployment = deployment

    def check_team_namespace(self, ctx: TeamNamespaceInput) -> PollState:
        """Done once the add-on has made the namespace."""
        ns = ctx.team.namespace
        found = self._kubernetes.get(self._cluster(ctx), ctx.region, "v1", "Namespace", ns)
        wait = Wait(f"namespace {ns} (the task governance add-on makes it)", deadlines.TEAM_NAMESPACE_CREATED)
        return self._poller.poll(ctx, wait, done=found is not None, status="Active" if found else "Absent")

    def prepare_team_claim(self, ctx: TeamNamespaceInput) -> dict[str, str]:
        """Each of the cluster's claims copied into the namespace (a claim there that is not the team's is refused),
        and the Secret reader of the namespace."""
        cluster, plan = self._cluster(ctx), ctx.team
        objects: list[dict[str, Any]] = []
        for source in plan.claims:
            namespace, claim = claim_name(source)
            bound = self._kubernetes.get(cluster, ctx.region, "v1", "PersistentVolumeClaim", claim, namespace)
            volume_name = ((bound or {}).get("spec") or {}).get("volumeName")
            volume = self._kubernetes.get(cluster, ctx.region, "v1", "PersistentVolume", str(volume_name))
            if volume is None:
                raise ClusterNotReadyError(
                    f"Claim {source} or its volume is gone from cluster '{ctx.clusterTag}'; run the storage stage "
                    f"again (POST /clusters/{ctx.clusterTag}/storage), then resume."
                )
            live = self._kubernetes.get(cluster, ctx.region, "v1", "PersistentVolumeClaim", claim, plan.namespace)
            if live is not None and not is_team_object(live, plan.team):
                raise ForeignResourceError(
                    f"Claim {plan.namespace}/{claim} exists but was not made by InstantStart; delete or rename it, "
                    "then resume."
                )
            objects += team_claim_objects(volume, plan, claim, ctx.clusterTag)
        applied = self._kubernetes.apply(cluster, ctx.region, [*objects, *team_secret_reader(plan)])
        return {"applied": ", ".join(applied)}

    def prepare_team_identity(self, ctx: TeamNamespaceInput) -> dict[str, str]:
        """The jobs' ServiceAccount and its association to the job namespace's role, once that role's trust admits
        team namespaces; nothing when the job namespace has no association (the trainingOperator feature is off)."""
        cluster, plan = self._cluster(ctx), ctx.team
        role_arn = self._eks.pod_identity_role(ctx.eksClusterName, plan.jobNamespace, JOB_SERVICE_ACCOUNT)
        if role_arn is None or _role_name(role_arn) != plan.jobsRole:
            return {
                "identity": f"none: {plan.jobNamespace}/{JOB_SERVICE_ACCOUNT} has no association with the jobs role"
            }
        role = self._iam.find_role(plan.jobsRole)
        if role is None or role.trust != job_trust(ctx.accountId, ctx.eksClusterName, plan.jobNamespace):
            raise ClusterNotReadyError(
                f"The jobs role {plan.jobsRole} does not trust team namespaces (it predates them, or was changed): "
                f"pods in {plan.namespace} could not assume it. Disable and enable the trainingOperator feature "
                f"(PATCH /clusters/{ctx.clusterTag}/features) to recreate the jobs identity, then resume."
            )
        account = team_service_account(plan)
        live = self._kubernetes.get(cluster, ctx.region, "v1", "ServiceAccount", JOB_SERVICE_ACCOUNT, plan.namespace)
        if live is None:
            self._kubernetes.apply(cluster, ctx.region, [account])
        elif not is_team_object(live, plan.team):
            raise ForeignResourceError(
                f"ServiceAccount {plan.namespace}/{JOB_SERVICE_ACCOUNT} exists but was not made by InstantStart; "
                "delete or rename it, then resume."
            )
        associated = self._eks.pod_identity_role(ctx.eksClusterName, plan.namespace, JOB_SERVICE_ACCOUNT)
        if associated is None:
            tags = ownership_tags(self._deployment, ctx.clusterTag)
            self._eks.create_pod_identity_association(
                ctx.eksClusterName, plan.namespace, JOB_SERVICE_ACCOUNT, role_arn, tags
            )
        elif associated != role_arn:
            raise ForeignResourceError(
                f"{plan.namespace}/{JOB_SERVICE_ACCOUNT} already has a pod identity association with role "
                f"{associated}; remove it, then resume."
            )
        return {"roleName": plan.jobsRole, "serviceAccount": f"{plan.namespace}/{JOB_SERVICE_ACCOUNT}"}

    def verify_team_namespace(self, ctx: TeamNamespaceInput) -> PollState:
        """Done once nothing is missing (a static claim binds on the PV controller's next pass)."""
        readiness = namespace_ready(self._eks, self._kubernetes, self._cluster(ctx), ctx.region, ctx.team)
        wait = Wait(f"namespace {ctx.team.namespace} to be ready for workloads", deadlines.TEAM_NAMESPACE_READY)
        status = "Ready" if readiness.ready else f"lacks {'; '.join(readiness.missing)}"
        return self._poller.poll(ctx, wait, done=readiness.ready, status=status)

    def remove_team_claim(self, ctx: TeamNamespaceInput) -> dict[str, str]:
        """Each of the team's claims and its PV, and the Secret reader, when the team's (the namespace itself stays:
        the add-on's)."""
        cluster, plan = self._cluster(ctx), ctx.team
        deleted: list[str] = []
        claims = [reference for pair in team_claim_references(plan, ctx.clusterTag) for reference in pair]
        for reference in [*claims, *team_secret_reader(plan)]:
            meta = reference["metadata"]
            live = self._kubernetes.get(
                cluster, ctx.region, reference["apiVersion"], reference["kind"], meta["name"], meta.get("namespace")
            )
            if is_team_object(live, plan.team):
                deleted += self._kubernetes.delete(cluster, ctx.region, [reference])
        return {"deleted": ", ".join(deleted) or "none"}

    def remove_team_identity(self, ctx: TeamNamespaceInput) -> dict[str, str]:
        """The association (when it names the jobs role) and the ServiceAccount, when the team's."""
        cluster, plan = self._cluster(ctx), ctx.team
        removed = []
        associated = self._eks.pod_identity_role(ctx.eksClusterName, plan.namespace, JOB_SERVICE_ACCOUNT)
        if _role_name(associated) == plan.jobsRole:
            self._eks.delete_pod_identity_association(ctx.eksClusterName, plan.namespace, JOB_SERVICE_ACCOUNT)
            removed.append(f"pod identity association {plan.namespace}/{JOB_SERVICE_ACCOUNT}")
        live = self._kubernetes.get(cluster, ctx.region, "v1", "ServiceAccount", JOB_SERVICE_ACCOUNT, plan.namespace)
        if is_team_object(live, plan.team):
            removed += self._kubernetes.delete(cluster, ctx.region, [team_service_account(plan)])
        return {"removed": ", ".join(removed) or "none"}

    def _cluster(self, ctx: TeamNamespaceInput) -> EksCluster:
        return reachable_control_plane(self._eks, ctx.eksClusterName, ctx.clusterTag)


def _role_name(arn: str | None) -> str | None:
    return arn.rsplit("/", 1)[-1] if arn else None
