"""Renders a `SubmitJobRequest` into a HyperPodPyTorchJob manifest, and reads a job object back into views.

What belongs here: the shape of the job object (placement, mounts, resources, run policy), the pod template every
job kind shares (`pod_template`), and how a HyperPodPyTorchJob's status reads (phase, restart budget). The KubeRay
kinds are `ray.py`; whether the cluster can run the job is `service.py`'s question.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.models.status import GPU_RESOURCE, GROUP_LABEL, INSTANCE_TYPE_LABEL
from controlplane.models.training import (
    TERMINAL_PHASES,
    JobKind,
    JobPhase,
    JobSummary,
    RestartBudget,
    RestartPolicy,
    RunPolicy,
    SubmitJobRequest,
)

API_VERSION = "sagemaker.amazonaws.com/v1"
KIND = JobKind.HYPERPOD_PYTORCH_JOB.value
# Every pod of a job carries its name under this label (set in the pod template), so its pods are one selector.
JOB_LABEL = "instantstart.aws/job"
# HyperPod labels a node that passed its deep health checks [inferred from HyperPod's node labels].
DEEP_HEALTH_LABEL = "sagemaker.amazonaws.com/deep-health-check-status"
DEEP_HEALTH_PASSED = "Passed"
EFA_RESOURCE = "vpc.amazonaws.com/efa"
CONTAINER_NAME = "pytorch"
S3_MOUNT, FSX_MOUNT, SHM_MOUNT = "/s3", "/fsx", "/dev/shm"
# Status conditions, strongest first: the phase is the first one that holds.
_PHASE_OF_CONDITION = (
    ("Failed", JobPhase.FAILED),
    ("Completed", JobPhase.SUCCEEDED),
    ("Succeeded", JobPhase.SUCCEEDED),
    ("Restarting", JobPhase.RESTARTING),
    ("Running", JobPhase.RUNNING),
)


@dataclass(frozen=True)
class JobPlacement:
    """Where the job runs and what it mounts, as the service resolved them against the cluster."""

    namespace: str
    claim: str
    fsx_claim: str | None
    efa_interfaces: int
    # The jobs' ServiceAccount (the trainingOperator feature's, with the jobs' AWS role) when the namespace has it.
    service_account: str | None = None
    # A team's job: its Kueue queue and priority labels, on the job object and on every pod template.
    labels: dict[str, str] = field(default_factory=dict)


def render(request: SubmitJobRequest, placement: JobPlacement) -> dict[str, Any]:
    """The HyperPodPyTorchJob for the request: one pod per node, placed by instance type or group."""
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {
            "name": request.name,
            "namespace": placement.namespace,
            "labels": {**placement.labels, MANAGED_LABEL: MANAGED_LABEL_VALUE, JOB_LABEL: request.name},
        },
        "spec": {
            "nprocPerNode": str(request.gpusPerNode) if request.gpusPerNode else "auto",
            "replicaSpecs": [
                {"name": "pods", "replicas": request.nodes, "template": _pytorch_template(request, placement)}
            ],
            "runPolicy": _run_policy(request),
            **({"elasticPolicy": request.elastic.model_dump()} if request.elastic else {}),
        },
    }


def _run_policy(request: SubmitJobRequest) -> dict[str, Any]:
    policy: dict[str, Any] = request.runPolicy.model_dump()
    if request.logMonitoring:
        policy["logMonitoringConfiguration"] = [rule.model_dump(exclude_none=True) for rule in request.logMonitoring]
    return policy


def _pytorch_template(request: SubmitJobRequest, placement: JobPlacement) -> dict[str, Any]:
    template = pod_template(request, placement, CONTAINER_NAME)
    container = template["spec"]["containers"][0]
    container.update({"command": request.command} if request.command else {})
    container.update({"args": request.args} if request.args else {})
    return template


def pod_template(request: SubmitJobRequest, placement: JobPlacement, container_name: str) -> dict[str, Any]:
    """The pod template of one of the job's nodes: placement, GPUs and EFA, the mounts, environment, image and the
    ServiceAccount whose AWS role the pods use (the container's command is the kind's to add)."""
    selector = (
        {INSTANCE_TYPE_LABEL: request.instanceType}
        if request.instanceType
        else {GROUP_LABEL: str(request.instanceGroup)}
    )
    resources: dict[str, str] = {}
    if request.gpusPerNode:
        resources[GPU_RESOURCE] = str(request.gpusPerNode)
    if request.efa and placement.efa_interfaces:
        resources[EFA_RESOURCE] = str(placement.efa_interfaces)
    volumes: list[dict[str, Any]] = [
        {"name": "s3", "persistentVolumeClaim": {"claimName": placement.claim}},
        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": f"{request.sharedMemoryGi}Gi"}},
    ]
    mounts = [{"name": "s3", "mountPath": S3_MOUNT}, {"name": "shm", "mountPath": SHM_MOUNT}]
    if placement.fsx_claim:
        volumes.append({"name": "fsx", "persistentVolumeClaim": {"claimName": placement.fsx_claim}})
        mounts.append({"name": "fsx", "mountPath": FSX_MOUNT})
    container: dict[str, Any] = {
        "name": container_name,
        "image": request.image,
        "env": [{"name": name, "value": value} for name, value in sorted(request.environment.items())],
        "resources": {"requests": resources, "limits": resources},
        "volumeMounts": mounts,
    }
    spec: dict[str, Any] = {"nodeSelector": selector, "containers": [container], "volumes": volumes}
    if placement.service_account:
        spec["serviceAccountName"] = placement.service_account
    if request.deepHealthCheckedOnly:
        requirement = {"key": DEEP_HEALTH_LABEL, "operator": "In", "values": [DEEP_HEALTH_PASSED]}
        terms = [{"matchExpressions": [requirement]}]
        spec["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}
        }
    return {"metadata": {"labels": {**placement.labels, JOB_LABEL: request.name}}, "spec": spec}


# --- reading a job object back ---------------------------------------------------------------------


def phase(job: dict[str, Any]) -> JobPhase:
    """The strongest condition held; a job that has not ended and is suspended (Kueue holds it) is Queued."""
    held = {c.get("type") for c in (job.get("status") or {}).get("conditions") or [] if c.get("status") == "True"}
    found = next((phase for condition, phase in _PHASE_OF_CONDITION if condition in held), JobPhase.PENDING)
    suspended = (((job.get("spec") or {}).get("runPolicy") or {}).get("suspend")) is True
    return JobPhase.QUEUED if suspended and found not in TERMINAL_PHASES else found


def summary(job: dict[str, Any]) -> JobSummary:
    replica = ((job.get("spec") or {}).get("replicaSpecs") or [{}])[0]
    container = (((replica.get("template") or {}).get("spec") or {}).get("containers") or [{}])[0]
    gpus = ((container.get("resources") or {}).get("limits") or {}).get(GPU_RESOURCE, 0)
    return JobSummary(
        name=job["metadata"]["name"],
        namespace=job["metadata"].get("namespace"),
        kind=JobKind(job["kind"]),
        phase=phase(job),
        nodes=int(replica.get("replicas") or 0),
        gpusPerNode=int(gpus),
        restartBudget=restart_budget(job),
        createdAt=job["metadata"].get("creationTimestamp"),
    )


def image(job: dict[str, Any]) -> str | None:
    replica = ((job.get("spec") or {}).get("replicaSpecs") or [{}])[0]
    containers = ((replica.get("template") or {}).get("spec") or {}).get("containers") or [{}]
    image: str | None = containers[0].get("image")
    return image


def restart_budget(job: dict[str, Any]) -> RestartBudget:
    """Restarts used (the operator's `status.restartCount`, and full job restarts from `status.restartStatus`)
    against the run policy's budget (the policy's defaults where the object leaves them out)."""
    status = job.get("status") or {}
    given = (job.get("spec") or {}).get("runPolicy") or {}
    restart = given.get("restartPolicy") or {}
    policy = RunPolicy(
        **_known(RunPolicy, given, exclude="restartPolicy"),
        restartPolicy=RestartPolicy(**_known(RestartPolicy, restart)),
    )
    restart_status = status.get("restartStatus")
    restart_status = restart_status if isinstance(restart_status, dict) else {}
    return RestartBudget(
        restarts=int(status.get("restartCount") or 0),
        restartsBeforeFullJobRestart=policy.restartPolicy.numRestartBeforeFullJobRestart,
        fullJobRestarts=int(restart_status.get("fullJobRestartCount") or 0),
        maxFullJobRestarts=policy.restartPolicy.maxFullJobRestarts,
        jobMaxRetryCount=policy.jobMaxRetryCount,
    )


def _known(model: type[RestartPolicy] | type[RunPolicy], given: dict[str, Any], exclude: str = "") -> dict[str, Any]:
    """The fields of `given` that `model` declares (the operator may add others)."""
    return {key: given[key] for key in model.model_fields if key in given and key != exclude}
