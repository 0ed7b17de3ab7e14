"""/clusters/{clusterTag}/deployments: self-managed model servers (a Deployment and its Service) — deploy from a
serving command or a training job's output, list, detail, update replicas or image, delete."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from api.authorization import READ, Routes, operator
from api.context import actor, plan_or_run
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import WORKLOAD_LONG_POLL, ClusterTagPath, ConfirmationToken, WaitSeconds, waited_by
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import Plan
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.serving import (
    DEPLOYMENT_NAME_PATTERN,
    DEPLOYMENT_NAME_RULE,
    DeploymentDetail,
    DeploymentList,
    DeploymentUpdate,
    DeploymentWait,
    DeployModelRequest,
    UpdateDeploymentRequest,
)

router = Routes()

NamePath = Annotated[str, Path(pattern=DEPLOYMENT_NAME_PATTERN, description=f"Deployment ({DEPLOYMENT_NAME_RULE}).")]
DryRun = Annotated[bool, Query(description="Return what would change without doing anything.")]


@router.get(
    "/clusters/<clusterTag>/deployments",
    allow=READ,
    operation_id="inference_list_deployments",
    summary="List the cluster's self-managed model servers",
    description="The model servers (Deployments made by the deploy call), by name, in pages of `limit`: "
    "engine, model, GPUs per replica, replicas ready of those asked for, status (Loading until every replica "
    "is ready) and service type.",
    tags=["inference"],
)
def list_deployments(
    clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None
) -> DeploymentList:
    refuse_unknown_parameters(router)
    return wiring.model_servers().list_deployments(clusterTag, limit, continue_)


@router.post(
    "/clusters/<clusterTag>/deployments",
    allow=operator("deploy a model server"),
    operation_id="inference_deploy_container",
    summary="Deploy a model server from a serving command",
    description="Runs a serving command as a Deployment: `vllm serve <model> …` or `python -m sglang.launch_server "
    "--model-path <model> …` (image and port inferred), or any command with `image`. `gpus` (GPUs per replica) is "
    "required: ask the person, never derive it from --tensor-parallel-size (which must not exceed it). "
    "`serviceType`: internal (ClusterIP, the default), external (internet-facing load balancer) or pool (warm "
    "workers, bound with inference_pool_action). `modelSource: {job}` serves a Succeeded training job's output. "
    "201 with the detail; the server is Loading until its health path answers (or Queued while its team's quota is "
    "used): inference_wait_deployment until it is Ready, then "
    "inference_call_model. dryRun returns the objects it would create.",
    tags=["inference"],
    responses={201: response_doc(DeploymentDetail, "Model server created"), 200: response_doc(Plan, "Dry run")},
    openapi_extensions=waited_by("inference_wait_deployment"),
)
def deploy(clusterTag: ClusterTagPath, request: DeployModelRequest, dryRun: DryRun = False) -> Response[str]:
    refuse_unknown_parameters(router, "dryRun")
    service = wiring.model_servers()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"deployments#{clusterTag}",
        body=request.model_dump(mode="json"),
        plan=lambda caller: service.plan_deploy(clusterTag, request),
        run=lambda caller: service.deploy(clusterTag, request),
        status=201,
    )


@router.get(
    "/clusters/<clusterTag>/deployments/<name>",
    allow=READ,
    operation_id="inference_get_deployment",
    summary="Read a model server: replicas, readiness, pods",
    description="The model server's settings, replicas ready of those asked for, its command and each pod with "
    "its node, readiness and (pool workers) the service it is bound to. A team's server whose pods Kueue holds is "
    "Queued, with Kueue's waitingReason.",
    tags=["inference"],
)
def get_deployment(clusterTag: ClusterTagPath, name: NamePath) -> DeploymentDetail:
    return wiring.model_servers().get(clusterTag, name)


@router.get(
    "/clusters/<clusterTag>/deployments/<name>/wait",
    allow=READ,
    operation_id="inference_wait_deployment",
    summary="Wait for a model server to be ready (long poll)",
    description="Returns as soon as the model server is neither Loading nor Queued (Ready: every replica answers its "
    "health path; or Scaled to zero), or after timeoutSeconds with its current detail; `done` says which. Call again "
    "while `done` is false; Queued waits for its team's quota; a server Loading for "
    "long: read its pods' events (inference_get_deployment, monitoring_get_events).",
    tags=["inference"],
    openapi_extensions=WORKLOAD_LONG_POLL,
)
def wait_deployment(clusterTag: ClusterTagPath, name: NamePath, timeoutSeconds: WaitSeconds = 20) -> DeploymentWait:
    refuse_unknown_parameters(router, "timeoutSeconds")
    return wiring.workload_waits().deployment(clusterTag, name, timeoutSeconds)


@router.patch(
    "/clusters/<clusterTag>/deployments/<name>",
    allow=operator("update a model server"),
    operation_id="inference_update_deployment",
    summary="Scale a model server or change its image",
    description="An explicit diff: only `replicas` and `image` given change; `changes` says per field unchanged or "
    "updated. A pool deployment is never scaled below its workers bound to services. dryRun changes nothing. "
    "Destructive when `replicas` is 0 and the server runs (it stops; callers get no answer): without "
    "confirmationToken that is refused (400 ConfirmationRequired) with the plan (what stops, what is kept) and a "
    "single-use token (10 minutes) in details, and nothing changes; show the plan to the person, then repeat the "
    "same request with the token. After a scale up, inference_wait_deployment until it is Ready.",
    tags=["inference"],
    openapi_extensions=waited_by("inference_wait_deployment"),
)
def update_deployment(
    clusterTag: ClusterTagPath,
    name: NamePath,
    request: UpdateDeploymentRequest,
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> DeploymentUpdate:
    refuse_unknown_parameters(router, "dryRun", "confirmationToken")
    return wiring.model_servers().update(clusterTag, name, request, dryRun, confirmationToken, actor(router))


@router.delete(
    "/clusters/<clusterTag>/deployments/<name>",
    allow=operator("delete a model server"),
    operation_id="inference_delete_deployment",
    summary="Delete a model server and its Services",
    description="Destructive: callers lose the model. Without confirmationToken, returns the plan (the Deployment, "
    "its pods and Services) and a single-use token (10 minutes) and changes nothing: show it to the person and ask "
    "them to confirm. Repeat with the token to delete (dryRun false in the answer).",
    tags=["inference"],
    responses={200: response_doc(Plan, "The plan and its token, or (dryRun false) what was deleted")},
)
def delete_deployment(
    clusterTag: ClusterTagPath,
    name: NamePath,
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.model_servers()
    return plan_or_run(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"DELETE /clusters/{clusterTag}/deployments/{name}",
        body={"confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_delete(clusterTag, name, caller),
        run=lambda caller: service.delete(clusterTag, name, confirmationToken or "", caller),
    )
