"""/clusters/{clusterTag}/jobs: training jobs (HyperPodPyTorchJob; RayJob and RayCluster on the KubeRay path) —
submit, list, detail, logs, delete."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from api.authorization import READ, Routes, operator
from api.context import once, plan_or_run
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import (
    WORKLOAD_LONG_POLL,
    ClusterTagPath,
    ConfirmationToken,
    DryRun,
    WaitSeconds,
    waited_by,
)
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import Plan
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.training import (
    JOB_NAME_PATTERN,
    JOB_NAME_RULE,
    JobDetail,
    JobList,
    JobLogs,
    JobWait,
    SubmitJobRequest,
)

router = Routes()

JobNamePath = Annotated[str, Path(pattern=JOB_NAME_PATTERN, description=f"Job name ({JOB_NAME_RULE}).")]
MAX_TAIL_LINES = 5000


@router.get(
    "/clusters/<clusterTag>/jobs",
    allow=READ,
    operation_id="job_list_all",
    summary="List the cluster's training jobs",
    description="The jobs in the cluster's job namespace (the storage claim's), kind by kind (HyperPodPyTorchJob, "
    "RayJob, RayCluster) and by name, in pages of `limit`: kind, phase, nodes, GPUs per node and (HyperPodPyTorchJob) "
    "restarts used against the budget. job_get_status shows one job's pods and events.",
    tags=["jobs"],
)
def list_jobs(clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None) -> JobList:
    refuse_unknown_parameters(router)
    return wiring.training_jobs().list_jobs(clusterTag, limit, continue_)


@router.post(
    "/clusters/<clusterTag>/jobs",
    allow=operator("submit a training job"),
    operation_id="job_submit",
    summary="Submit a training job (HyperPodPyTorchJob, RayJob or RayCluster)",
    description="Creates a job of `kind`: `nodes` pods, one per node, each with `gpusPerNode` GPUs, placed by "
    "`instanceType` or `instanceGroup` (read hyperpod_list_nodes or cluster status first), with the S3 claim at "
    "/s3 (FSx at /fsx when the cluster has it) and /dev/shm of `sharedMemoryGi`. HyperPodPyTorchJob (the default; "
    "needs the trainingOperator feature) runs `command` in every pod under the recovery budget `runPolicy` "
    "(defaults: jobMaxRetryCount 5; 3 in-place restarts before a full job restart, 1 full restart, in 21600 s). "
    "RayJob and RayCluster (need the kuberayOperator feature) take the KubeRay path for Ray-native work such as "
    "reinforcement learning: a Ray head pod and `nodes - 1` workers; a RayJob submits `command` as its entrypoint "
    "and ends, a RayCluster stays up until deleted; `ray` sets the Ray version, runtime env and cleanup. "
    "201 with the job's detail; then job_wait until it is done (Succeeded or Failed), and read job_get_logs.",
    tags=["jobs"],
    responses={201: response_doc(JobDetail, "Job created")},
    openapi_extensions=waited_by("job_wait"),
)
def submit_job(clusterTag: ClusterTagPath, request: SubmitJobRequest) -> Response[str]:
    return once(
        router,
        scope=f"jobs#{clusterTag}",
        body=request.model_dump(mode="json"),
        run=lambda caller: wiring.training_jobs().submit(clusterTag, request),
        status=201,
    )


@router.get(
    "/clusters/<clusterTag>/jobs/<jobName>",
    allow=READ,
    operation_id="job_get_status",
    summary="Read a training job: phase, pods, restarts against the budget, last events",
    description="The job's phase (Pending, Running, Restarting, Succeeded, Failed; a RayJob's jobStatus and "
    "jobDeploymentStatus read as the same phases), its pods with node and status (a Ray job's head, workers and "
    "submitter), in-place restarts used of the budget before a full job restart (HyperPodPyTorchJob), and its last "
    "events. To wait for it to end, call job_wait rather than this again and again.",
    tags=["jobs"],
)
def get_job(clusterTag: ClusterTagPath, jobName: JobNamePath) -> JobDetail:
    return wiring.training_jobs().get(clusterTag, jobName)


@router.get(
    "/clusters/<clusterTag>/jobs/<jobName>/wait",
    allow=READ,
    operation_id="job_wait",
    summary="Wait for a training job to end (long poll)",
    description="Returns as soon as the job is Succeeded or Failed (a RayCluster, which runs until deleted: as soon "
    "as it is Running), or after timeoutSeconds with its current detail; `done` says which. Call again while "
    "`done` is false.",
    tags=["jobs"],
    openapi_extensions=WORKLOAD_LONG_POLL,
)
def wait_job(clusterTag: ClusterTagPath, jobName: JobNamePath, timeoutSeconds: WaitSeconds = 20) -> JobWait:
    refuse_unknown_parameters(router, "timeoutSeconds")
    return wiring.workload_waits().job(clusterTag, jobName, timeoutSeconds)


@router.get(
    "/clusters/<clusterTag>/jobs/<jobName>/logs",
    allow=READ,
    operation_id="job_get_logs",
    summary="Read a training job's pod log",
    description="One pod's log lines (the job's first pod unless `pod` names another; `pods` lists them; a RayJob's "
    "driver output is in its submitter pod), the last `tailLines` lines or those of the last `sinceSeconds` "
    "seconds.",
    tags=["jobs"],
)
def get_job_logs(
    clusterTag: ClusterTagPath,
    jobName: JobNamePath,
    pod: Annotated[str | None, Query(max_length=253, description="One of the job's pods.")] = None,
    tailLines: Annotated[int | None, Query(ge=1, le=MAX_TAIL_LINES, description="Last lines only.")] = 200,
    sinceSeconds: Annotated[int | None, Query(ge=1, description="Lines of the last seconds only.")] = None,
) -> JobLogs:
    refuse_unknown_parameters(router, "pod", "tailLines", "sinceSeconds")
    return wiring.training_jobs().logs(clusterTag, jobName, pod, tailLines, sinceSeconds)


@router.delete(
    "/clusters/<clusterTag>/jobs/<jobName>",
    allow=operator("delete a training job"),
    operation_id="job_delete",
    summary="Delete a training job and its pods",
    description="Destructive: stops the job. Without confirmationToken, returns the plan (the job's phase and pods) "
    "and a single-use token (10 minutes) and changes nothing: show it to the person and ask them to confirm. "
    "Repeat with the token to delete the job (dryRun false in the answer); its operator removes its pods.",
    tags=["jobs"],
    responses={200: response_doc(Plan, "The plan and its token, or (dryRun false) what was deleted")},
)
def delete_job(
    clusterTag: ClusterTagPath,
    jobName: JobNamePath,
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.training_jobs()
    return plan_or_run(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"DELETE /clusters/{clusterTag}/jobs/{jobName}",
        body={"confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_delete(clusterTag, jobName, caller),
        run=lambda caller: service.delete(clusterTag, jobName, confirmationToken or "", caller),
    )
