"""Training jobs on a cluster: submit (checked against the cluster and the CRD schema), list, detail, logs, delete,
for every kind of `kinds.JOB_KINDS` (HyperPodPyTorchJob under the training operator, RayJob and RayCluster under
KubeRay). A job's name is unique across the kinds and the namespaces jobs run in: the storage claim's, or a team's
(`team_targets`: its namespace, labelled for its Kueue queue and priority), so a name finds its job in either.

Reads go through the view role (`reads`, `nodes`); creating and deleting job objects through the jobs role
(`writes`), whose access is limited to job objects. Deleting stops a job: a plan with a confirmation token comes
first. Every refusal is a 4xx whose message says what to change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations
from controlplane.core.control_plane import reachable_control_plane
from controlplane.core.features.required import require_addon_feature
from controlplane.core.naming import JOB_SERVICE_ACCOUNT
from controlplane.core.paging import decode_token, encode_token, invalid_token
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, KubernetesNode, WorkloadGateway
from controlplane.core.ports.queues import KueueGateway
from controlplane.core.registry import ClusterService
from controlplane.core.team_targets import TeamTarget, TeamTargets, workload_namespace
from controlplane.core.training.kinds import JOB_KINDS, rules_of
from controlplane.core.training.manifest import DEEP_HEALTH_LABEL, DEEP_HEALTH_PASSED, JOB_LABEL, JobPlacement
from controlplane.core.training.queueing import with_waiting_reasons
from controlplane.core.training.schema import schema_problems
from controlplane.models.clusters import ClusterRecord, Plan, PlannedAction
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.errors import ConflictError, FeatureNotEnabledError, InvalidRequestError, NotFoundError
from controlplane.models.features import Feature
from controlplane.models.instance_types import instance_type
from controlplane.models.status import GPU_RESOURCE, GROUP_LABEL, INSTANCE_TYPE_LABEL
from controlplane.models.training import (
    RAY_KINDS,
    TERMINAL_PHASES,
    JobDetail,
    JobEvent,
    JobKind,
    JobList,
    JobLogs,
    JobPod,
    JobSummary,
    SubmitJobRequest,
)

CAPACITY_TYPE_LABEL = "sagemaker.amazonaws.com/capacity-type"
SPOT = "spot"
LAST_EVENTS = 10
DELETE_JOB_ACTION = "delete-job"
# The KubeRay operator's Deployment, as the kuberayOperator feature's bundle installs it: (namespace, name).
KUBERAY_OPERATOR_DEPLOYMENT = ("kuberay-operator", "kuberay-operator")


class JobNotFoundError(NotFoundError):
    code = "JobNotFound"


class JobNameInUseError(ConflictError):
    code = "JobNameInUse"


class StorageClaimMissingError(ConflictError):
    code = "StorageClaimMissing"


class TrainingJobService:
    def __init__(
        self,
        clusters: ClusterService,
        eks: Callable[[str], EksGateway],
        nodes: KubernetesGateway,
        reads: WorkloadGateway,
        writes: WorkloadGateway,
        confirmations: Confirmations,
        targets: TeamTargets,
        queues: KueueGateway,
    ) -> None:
        self._clusters = clusters
        self._eks = eks
        self._nodes = nodes
        self._reads = reads
        self._writes = writes
        self._confirmations = confirmations
        self._targets = targets
        self._queues = queues

    # --- submit ------------------------------------------------------------------------------

    def submit(self, cluster_tag: str, request: SubmitJobRequest) -> JobDetail:
        """Check the request against the cluster, render and validate the manifest, create it, return its detail."""
        record, cluster, job, namespace = self._checked(cluster_tag, request)
        if not self._writes.create(cluster, record.region, job):
            raise _name_in_use(request.name, namespace)
        return self.get(cluster_tag, request.name)

    def check(self, cluster_tag: str, request: SubmitJobRequest) -> None:
        """Every check `submit` runs, creating nothing (a dry run refuses what the submit would)."""
        self._checked(cluster_tag, request)

    def _checked(
        self, cluster_tag: str, request: SubmitJobRequest
    ) -> tuple[ClusterRecord, EksCluster, dict[str, Any], str]:
        """The cluster, the rendered job and its namespace, once every check passed."""
        if request.elastic and request.tieredCheckpointing:
            raise InvalidRequestError(
                "Elastic training and tiered checkpointing do not compose: drop `elastic` or `tieredCheckpointing`."
            )
        record, cluster = self._cluster(cluster_tag)
        if request.kind in RAY_KINDS:
            self._require_kuberay_operator(record, cluster, request.kind)
        else:
            self._require_training_operator(record, cluster)
        team = self._targets(record, cluster, request.team, request.priority) if request.team else None
        placement = self._placement(record, cluster, request, team)
        found = self._find_job(record, cluster, request.name)
        if found is not None:
            raise _name_in_use(request.name, found["metadata"]["namespace"])
        job = JOB_KINDS[request.kind].render(request, placement)
        problems = schema_problems(job)
        if problems:
            raise InvalidRequestError(f"The job does not match the {request.kind.value} schema: {'; '.join(problems)}.")
        return record, cluster, job, placement.namespace

    def _require_training_operator(self, record: ClusterRecord, cluster: EksCluster) -> None:
        require_addon_feature(
            self._eks(record.region),
            record.clusterTag,
            cluster.name,
            Feature.TRAINING_OPERATOR,
            needs=f"{JobKind.HYPERPOD_PYTORCH_JOB.value} needs",
            addon="the HyperPod training operator add-on",
            then=", then submit again",
        )

    def _require_kuberay_operator(self, record: ClusterRecord, cluster: EksCluster, kind: JobKind) -> None:
        namespace, name = KUBERAY_OPERATOR_DEPLOYMENT
        if self._nodes.get(cluster, record.region, "apps/v1", "Deployment", name, namespace) is None:
            raise FeatureNotEnabledError(
                f"{kind.value} needs the '{Feature.KUBERAY_OPERATOR.value}' feature (the KubeRay operator is not "
                f"installed in namespace {namespace}). Enable it with PATCH /clusters/{record.clusterTag}/features "
                f'{{"{Feature.KUBERAY_OPERATOR.value}": {{"enabled": true}}}}, then submit again.',
                {"feature": Feature.KUBERAY_OPERATOR.value},
            )

    def _placement(
        self, record: ClusterRecord, cluster: EksCluster, request: SubmitJobRequest, team: TeamTarget | None
    ) -> JobPlacement:
        namespace, claim = _claim(record)
        present = self._nodes.get(cluster, record.region, "v1", "PersistentVolumeClaim", claim, namespace)
        if present is None:
            raise StorageClaimMissingError(
                f"The storage claim {namespace}/{claim} is gone from cluster '{record.clusterTag}'; resume the "
                f"storage stage (POST /clusters/{record.clusterTag}/storage) to recreate it.",
            )
        nodes = self._nodes.nodes(cluster, record.region)
        if request.instanceType:
            chosen = [node for node in nodes if node.labels.get(INSTANCE_TYPE_LABEL) == request.instanceType]
            known = sorted({node.labels.get(INSTANCE_TYPE_LABEL, "") for node in nodes} - {""})
            what = f"instance type '{request.instanceType}'"
        else:
            chosen = [node for node in nodes if node.labels.get(GROUP_LABEL) == request.instanceGroup]
            known = sorted({node.labels.get(GROUP_LABEL, "") for node in nodes} - {""})
            what = f"instance group '{request.instanceGroup}'"
        if not chosen:
            field = "instanceType" if request.instanceType else "instanceGroup"
            raise InvalidRequestError(
                f"Cluster '{record.clusterTag}' has no nodes of {what}; set {field} to one it has "
                f"({', '.join(known) or 'none yet: add an instance group first'}).",
                {field: known},
            )
        gpus = max(_gpus(node) for node in chosen)
        if request.gpusPerNode > gpus:
            raise InvalidRequestError(
                f"gpusPerNode {request.gpusPerNode} is more than the {gpus} GPU(s) a node of {what} has; "
                f"ask for at most {gpus}, or place the job on a larger instance type.",
                {"gpusPerNode": gpus},
            )
        if request.deepHealthCheckedOnly and not any(
            node.labels.get(DEEP_HEALTH_LABEL) == DEEP_HEALTH_PASSED for node in chosen
        ):
            raise InvalidRequestError(
                f"No node of {what} has passed HyperPod's deep health checks; drop `deepHealthCheckedOnly`, or place "
                f"the job on a group whose nodes ran them (GET /clusters/{record.clusterTag}/nodes shows each node's "
                "health).",
            )
        if request.elastic and any(node.labels.get(CAPACITY_TYPE_LABEL, "").lower() == SPOT for node in chosen):
            raise InvalidRequestError(
                f"Elastic training does not run on spot capacity, and {what} has spot nodes; drop `elastic`, or "
                "place the job on on-demand nodes.",
            )
        facts = instance_type(chosen[0].labels.get(INSTANCE_TYPE_LABEL, ""))
        _, fsx_claim = _claim(record, fsx=True) if record.fsxClaim else (None, None)
        efa = facts.efa_interfaces if facts else 0
        home = namespace
        if team is not None:
            namespace = team.namespace
        account = self._service_account(record, cluster, {home, namespace})
        return JobPlacement(namespace, claim, fsx_claim, efa, account, team.labels if team else {})

    def _service_account(self, record: ClusterRecord, cluster: EksCluster, namespaces: set[str]) -> str | None:
        """The trainingOperator feature's jobs ServiceAccount when each namespace has it (the job namespace's says the
        identity is in place: a team's copy outlives the feature); a pod naming a missing one is never created."""
        found = (
            self._nodes.get(cluster, record.region, "v1", "ServiceAccount", JOB_SERVICE_ACCOUNT, namespace)
            for namespace in sorted(namespaces)
        )
        return JOB_SERVICE_ACCOUNT if all(account is not None for account in found) else None

    # --- reads -------------------------------------------------------------------------------

    def list_jobs(self, cluster_tag: str, limit: int = DEFAULT_PAGE_SIZE, token: str | None = None) -> JobList:
        """The jobs of every kind, kind by kind (in `JOB_KINDS` order), in the claim's and the teams' namespaces."""
        record, cluster = self._cluster(cluster_tag)
        home, _ = _claim(record)
        kinds = list(JOB_KINDS.values())
        index, kind_token = _list_position(token, len(kinds))
        jobs: list[JobSummary] = []
        while index < len(kinds) and len(jobs) < limit:
            rules = kinds[index]
            page = self._reads.list_objects(
                cluster, record.region, rules.api_version, rules.kind.value, None, limit - len(jobs), kind_token
            )
            jobs.extend(rules.summary(job) for job in page.items if rules.listed(job) and _ours(job, home))
            index, kind_token = (index, page.next_token) if page.next_token else (index + 1, None)
        next_token = encode_token([index, kind_token]) if index < len(kinds) else None
        jobs = with_waiting_reasons(jobs, lambda: self._queues.workloads(cluster, record.region))
        return JobList(clusterTag=cluster_tag, jobs=jobs, continue_=next_token)

    def get(self, cluster_tag: str, name: str) -> JobDetail:
        """Phase, pods with node and status, restarts used against the budget, and the last events."""
        record, cluster = self._cluster(cluster_tag)
        job = self._job(record, cluster, name)
        namespace = job["metadata"]["namespace"]
        pods = self._reads.pods(cluster, record.region, namespace, {JOB_LABEL: name})
        events = self._reads.events(cluster, record.region, namespace, name)[-LAST_EVENTS:]
        rules = rules_of(job)
        [summary] = with_waiting_reasons(
            [rules.summary(job)], lambda: self._queues.workloads(cluster, record.region, namespace)
        )
        return JobDetail(
            **summary.model_dump(),
            image=rules.image(job),
            pods=[JobPod(name=pod.name, node=pod.node, phase=pod.phase, restarts=pod.restarts) for pod in pods],
            events=[JobEvent(type=e.type, reason=e.reason, message=e.message, at=e.at) for e in events],
        )

    def logs(
        self,
        cluster_tag: str,
        name: str,
        pod: str | None = None,
        tail_lines: int | None = None,
        since_seconds: int | None = None,
    ) -> JobLogs:
        """One pod's log (the job's first pod unless `pod` names another of its pods)."""
        record, cluster = self._cluster(cluster_tag)
        job = self._job(record, cluster, name)
        namespace = job["metadata"]["namespace"]
        pods = [found.name for found in self._reads.pods(cluster, record.region, namespace, {JOB_LABEL: name})]
        if pod is not None and pod not in pods:
            raise NotFoundError(
                f"Pod '{pod}' is not one of job '{name}''s pods ({', '.join(pods) or 'none yet'}); pass one of them.",
                {"pods": pods},
            )
        chosen = pod or (pods[0] if pods else None)
        if chosen is None:
            return JobLogs(jobName=name, pod="", pods=[], lines=[], note=_why_no_pods(job))
        text = self._reads.pod_log(cluster, record.region, namespace, chosen, tail_lines, since_seconds)
        if text is None:  # the pod ended between the listing and the read (cleanPodPolicy: All): its log went with it
            return JobLogs(jobName=name, pod=chosen, pods=[p for p in pods if p != chosen], lines=[])
        return JobLogs(jobName=name, pod=chosen, pods=pods, lines=text.splitlines())

    # --- delete (destructive: plan, then confirm) ---------------------------------------------

    def plan_delete(self, cluster_tag: str, name: str, actor: Actor) -> Plan:
        """What deleting the job stops, with a single-use confirmation token."""
        detail = self.get(cluster_tag, name)
        token, expires_at = self._confirmations.issue(actor, DELETE_JOB_ACTION, f"{cluster_tag}/{name}")
        return Plan(
            actions=[_deletion(detail)],
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Deleting job {name} ({detail.phase.value}) stops it and removes its {len(detail.pods)} pod(s). "
            "Ask the person to confirm, then repeat the request with confirmationToken.",
        )

    def delete(self, cluster_tag: str, name: str, token: str, actor: Actor) -> Plan:
        """Delete the job object with the token of a prior plan; the operator removes its pods."""
        record, cluster = self._cluster(cluster_tag)
        detail = self.get(cluster_tag, name)
        rules = JOB_KINDS[detail.kind]
        how = f"Call DELETE /clusters/{cluster_tag}/jobs/{name} without a token"
        with self._confirmations.redeeming(token, actor, DELETE_JOB_ACTION, f"{cluster_tag}/{name}", how):
            deleted = self._writes.delete_object(
                cluster, record.region, rules.api_version, rules.kind.value, detail.namespace, name
            )
            if not deleted:
                raise _not_found(name)
        return Plan(dryRun=False, actions=[_deletion(detail)], message=f"Deleted job {name}; its pods are removed.")

    # --- helpers -----------------------------------------------------------------------------

    def _cluster(self, cluster_tag: str) -> tuple[ClusterRecord, EksCluster]:
        record = self._clusters.get(cluster_tag)
        if not record.storageClaim:
            raise StorageClaimMissingError(
                f"Cluster '{cluster_tag}' has no storage claim for jobs to mount at /s3; run the storage stage "
                f"(POST /clusters/{cluster_tag}/storage) first.",
            )
        return record, reachable_control_plane(self._eks(record.region), record.eksClusterName, cluster_tag)

    def _find_job(self, record: ClusterRecord, cluster: EksCluster, name: str) -> dict[str, Any] | None:
        """The job object named `name`, whichever its kind and namespace (the claim's or a team's)."""
        home, _ = _claim(record)
        for rules in JOB_KINDS.values():
            api_version, kind = rules.api_version, rules.kind.value
            page = self._reads.list_objects(cluster, record.region, api_version, kind, None, 100, None, name=name)
            job = next((job for job in page.items if _ours(job, home)), None)
            if job is not None:
                return job
        return None

    def _job(self, record: ClusterRecord, cluster: EksCluster, name: str) -> dict[str, Any]:
        job = self._find_job(record, cluster, name)
        if job is None:
            raise _not_found(name)
        return job


def _why_no_pods(job: dict[str, Any]) -> str:
    """Why a job has no pod to read a log from: not started yet, or ended with its pods deleted."""
    phase = rules_of(job).summary(job).phase
    if phase not in TERMINAL_PHASES:
        return f"The job is {phase.value} and has no pod yet; job_wait follows it until it ends."
    if job.get("kind") != JobKind.HYPERPOD_PYTORCH_JOB:
        return (
            f"The job {phase.value}, and KubeRay removed its pods when it ended (ray.shutdownAfterJobFinishes), their "
            "logs with them; a job that writes its log under /s3 keeps it in the storage claim."
        )
    policy = ((job.get("spec") or {}).get("runPolicy") or {}).get("cleanPodPolicy", "All")
    return (
        f"The job {phase.value}, and its pods were deleted when it ended (cleanPodPolicy {policy}), their logs with "
        "them. To keep a job's pods and logs until it is deleted, submit it with runPolicy.cleanPodPolicy None (the "
        "default); a job that writes its log under /s3 keeps it in the storage claim."
    )


def _deletion(detail: JobDetail) -> PlannedAction:
    pods = ", ".join(pod.name for pod in detail.pods) or "none"
    return PlannedAction(
        action="delete",
        resource=detail.kind.value,
        name=f"{detail.namespace}/{detail.name}",
        detail=f"{detail.phase}; pods: {pods}",
    )


def _list_position(token: str | None, kinds: int) -> tuple[int, str | None]:
    """(index of the kind, that kind's continue token) where the page of `token` starts."""
    if token is None:
        return 0, None
    position = decode_token(token)
    valid = isinstance(position, list) and len(position) == 2  # [kind index, kind token]
    if not valid or not isinstance(position[0], int) or not 0 <= position[0] < kinds:
        raise invalid_token()
    if position[1] is not None and not isinstance(position[1], str):
        raise invalid_token()
    return position[0], position[1]


def _claim(record: ClusterRecord, fsx: bool = False) -> tuple[str, str]:
    """(namespace, name) of the cluster's S3 claim (or its FSx claim); jobs run in the claim's namespace."""
    namespace, _, name = str(record.fsxClaim if fsx else record.storageClaim).rpartition("/")
    return namespace or "default", name


def _gpus(node: KubernetesNode) -> int:
    """The GPUs of the node's instance type (from the reviewed table), else those the node reports."""
    facts = instance_type(node.labels.get(INSTANCE_TYPE_LABEL, ""))
    return facts.gpus if facts else int(node.capacity.get(GPU_RESOURCE, "0"))


def _name_in_use(name: str, namespace: str) -> JobNameInUseError:
    return JobNameInUseError(
        f"A job named '{name}' already exists in namespace {namespace}; choose another name, or delete that job first.",
    )


def _not_found(name: str) -> JobNotFoundError:
    return JobNotFoundError(f"No job named '{name}' in the cluster; GET /clusters/{{clusterTag}}/jobs lists the jobs.")


def _ours(job: dict[str, Any], home: str) -> bool:
    return workload_namespace(job["metadata"].get("namespace"), home)
