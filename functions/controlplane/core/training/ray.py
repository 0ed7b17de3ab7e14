"""Renders a `SubmitJobRequest` of a KubeRay kind (RayJob, RayCluster) into its manifest, and reads one back.

What belongs here: the shape of the Ray objects (a head group and one worker group on the job's nodes, with the
same pod template as every job: placement, GPUs, mounts, environment), the RayJob's entrypoint and submitter, and
how KubeRay's status reads as the jobs' phases. Whether the cluster can run the job is `service.py`'s question.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.core.training.manifest import JOB_LABEL, JobPlacement, pod_template
from controlplane.models.status import GPU_RESOURCE
from controlplane.models.training import JobKind, JobPhase, JobSummary, SubmitJobRequest

API_VERSION = "ray.io/v1"
HEAD_CONTAINER, WORKER_CONTAINER, SUBMITTER_CONTAINER = "ray-head", "ray-worker", "ray-job-submitter"
WORKER_GROUP = "workers"
# The dashboard (and job submission API) listens on every interface of the head, at KubeRay's default port.
HEAD_START_PARAMS = {"dashboard-host": "0.0.0.0"}
# RayJob: `status.jobStatus` (the Ray job) decides first, then `status.jobDeploymentStatus` (KubeRay's view).
_PHASE_OF_JOB_STATUS = {
    "SUCCEEDED": JobPhase.SUCCEEDED,
    "FAILED": JobPhase.FAILED,
    "STOPPED": JobPhase.FAILED,
    "RUNNING": JobPhase.RUNNING,
}
_PHASE_OF_DEPLOYMENT_STATUS = {
    "Complete": JobPhase.SUCCEEDED,
    "Failed": JobPhase.FAILED,
    "Retrying": JobPhase.RESTARTING,
    "Running": JobPhase.RUNNING,
}
# RayCluster: `status.state`; a long-lived cluster runs until it is deleted.
_PHASE_OF_CLUSTER_STATE = {"ready": JobPhase.RUNNING, "failed": JobPhase.FAILED}


def render(request: SubmitJobRequest, placement: JobPlacement) -> dict[str, Any]:
    """The RayJob or RayCluster for the request: a head pod and `nodes - 1` workers, each on its own node."""
    metadata = {
        "name": request.name,
        "namespace": placement.namespace,
        "labels": {**placement.labels, MANAGED_LABEL: MANAGED_LABEL_VALUE, JOB_LABEL: request.name},
    }
    cluster = _cluster_spec(request, placement)
    if request.kind == JobKind.RAY_CLUSTER:
        return {"apiVersion": API_VERSION, "kind": request.kind.value, "metadata": metadata, "spec": cluster}
    options = request.ray_options
    spec: dict[str, Any] = {
        "entrypoint": shlex.join([*request.command, *request.args]),
        "shutdownAfterJobFinishes": options.shutdownAfterJobFinishes,
        "ttlSecondsAfterFinished": options.ttlSecondsAfterFinished,
        "submitterPodTemplate": _submitter_template(request),
        "rayClusterSpec": cluster,
    }
    if options.runtimeEnv:
        spec["runtimeEnvYAML"] = json.dumps(options.runtimeEnv, sort_keys=True)  # JSON is YAML
    return {"apiVersion": API_VERSION, "kind": request.kind.value, "metadata": metadata, "spec": spec}


def _cluster_spec(request: SubmitJobRequest, placement: JobPlacement) -> dict[str, Any]:
    workers = request.nodes - 1
    return {
        "rayVersion": request.ray_options.rayVersion,
        "headGroupSpec": {
            "rayStartParams": dict(HEAD_START_PARAMS),
            "template": pod_template(request, placement, HEAD_CONTAINER),
        },
        "workerGroupSpecs": [
            {
                "groupName": WORKER_GROUP,
                "replicas": workers,
                "minReplicas": workers,
                "maxReplicas": workers,
                "rayStartParams": {},
                "template": pod_template(request, placement, WORKER_CONTAINER),
            }
        ],
    }


def _submitter_template(request: SubmitJobRequest) -> dict[str, Any]:
    """The pod that runs `ray job submit` and follows the job's driver log; KubeRay fills in its command."""
    container = {"name": SUBMITTER_CONTAINER, "image": request.image}
    return {
        "metadata": {"labels": {JOB_LABEL: request.name}},
        "spec": {"restartPolicy": "Never", "containers": [container]},
    }


# --- reading a Ray object back ---------------------------------------------------------------------


def phase(job: dict[str, Any]) -> JobPhase:
    status = job.get("status") or {}
    if job.get("kind") == JobKind.RAY_CLUSTER:
        return _PHASE_OF_CLUSTER_STATE.get(str(status.get("state")), JobPhase.PENDING)
    return _PHASE_OF_JOB_STATUS.get(
        str(status.get("jobStatus")),
        _PHASE_OF_DEPLOYMENT_STATUS.get(str(status.get("jobDeploymentStatus")), JobPhase.PENDING),
    )


def cluster_spec(job: dict[str, Any]) -> dict[str, Any]:
    """The Ray cluster's spec: a RayCluster's own, a RayJob's `rayClusterSpec`."""
    spec: dict[str, Any] = job.get("spec") or {}
    if job.get("kind") == JobKind.RAY_JOB:
        cluster: dict[str, Any] = spec.get("rayClusterSpec") or {}
        return cluster
    return spec


def summary(job: dict[str, Any]) -> JobSummary:
    cluster = cluster_spec(job)
    workers = sum(int(group.get("replicas") or 0) for group in cluster.get("workerGroupSpecs") or [])
    container = _head_container(job)
    gpus = ((container.get("resources") or {}).get("limits") or {}).get(GPU_RESOURCE, 0)
    return JobSummary(
        name=job["metadata"]["name"],
        namespace=job["metadata"].get("namespace"),
        kind=JobKind(job["kind"]),
        phase=phase(job),
        nodes=1 + workers,
        gpusPerNode=int(gpus),
        createdAt=job["metadata"].get("creationTimestamp"),
    )


def image(job: dict[str, Any]) -> str | None:
    image: str | None = _head_container(job).get("image")
    return image


def owned_by_a_ray_job(job: dict[str, Any]) -> bool:
    """A RayCluster that KubeRay made for a RayJob: it is listed as part of that job, not as a job of its own."""
    owners = (job.get("metadata") or {}).get("ownerReferences") or []
    return any(owner.get("kind") == JobKind.RAY_JOB for owner in owners)


def _head_container(job: dict[str, Any]) -> dict[str, Any]:
    template = (cluster_spec(job).get("headGroupSpec") or {}).get("template") or {}
    containers = (template.get("spec") or {}).get("containers") or [{}]
    container: dict[str, Any] = containers[0]
    return container
