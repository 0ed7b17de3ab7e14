"""/clusters/{clusterTag}/endpoints: managed inference endpoints (InferenceEndpointConfig, JumpStartModel) —
create, list, detail, delete, chat."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from api.authorization import READ, Routes, operator
from api.context import plan_or_run
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import WORKLOAD_LONG_POLL, ClusterTagPath, ConfirmationToken, DryRun, WaitSeconds, waited_by
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.chat import ChatCompletion, ChatCompletionRequest
from controlplane.models.clusters import Plan
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.endpoints import (
    ENDPOINT_NAME_PATTERN,
    ENDPOINT_NAME_RULE,
    CreateEndpointRequest,
    EndpointDetail,
    EndpointList,
    EndpointManifest,
    EndpointWait,
)

router = Routes()

EndpointNamePath = Annotated[str, Path(pattern=ENDPOINT_NAME_PATTERN, description=f"Endpoint ({ENDPOINT_NAME_RULE}).")]
ManifestOnly = Annotated[bool, Query(description="Return the manifest without creating anything.")]


@router.get(
    "/clusters/<clusterTag>/endpoints",
    allow=READ,
    operation_id="inference_endpoint_list",
    summary="List the cluster's managed inference endpoints",
    description="InferenceEndpointConfigs and JumpStartModels in the cluster's workload namespace, in pages of "
    "`limit`: kind, state (DeploymentPending … DeploymentComplete, Deletion…), model, instance type and replicas. "
    "inference_endpoint_get shows one endpoint's workers and its SageMaker endpoint.",
    tags=["endpoints"],
)
def list_endpoints(
    clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None
) -> EndpointList:
    refuse_unknown_parameters(router)
    return wiring.endpoints().list_endpoints(clusterTag, limit, continue_)


@router.post(
    "/clusters/<clusterTag>/endpoints",
    allow=operator("create an inference endpoint"),
    operation_id="inference_endpoint_create",
    summary="Create a managed inference endpoint (InferenceEndpointConfig or JumpStartModel)",
    description="Deploys `replicas` workers on `instanceType` (one the cluster has) behind a SageMaker endpoint, "
    "managed by the HyperPod inference operator (needs the inferenceOperator feature). Give `model` (source: s3 "
    "path, fsx, huggingFace with an optional token Secret, or `job` — a Succeeded training job's S3 output; the "
    "worker image, port and GPUs per worker) or `jumpStart` (a catalog model id). Optional: `kvCache` (L1 in CPU "
    "memory; L2 on `tieredstorage`, which needs the tieredStorage feature, or `redis` with `localUrl`), "
    "`routing` (prefixaware | kvaware | session | roundrobin; fixed at creation: to change it, delete and create "
    "again) and `autoscaling`. With dryRun, returns the manifest after every check and creates nothing. 201 with "
    "the endpoint's detail; inference_endpoint_wait until its state is DeploymentComplete, then call it with "
    "inference_endpoint_call.",
    tags=["endpoints"],
    responses={
        201: response_doc(EndpointDetail, "Endpoint created"),
        200: response_doc(EndpointManifest, "The manifest a create would submit (dryRun)"),
    },
    openapi_extensions=waited_by("inference_endpoint_wait"),
)
def create_endpoint(
    clusterTag: ClusterTagPath, request: CreateEndpointRequest, dryRun: ManifestOnly = False
) -> Response[str]:
    service = wiring.endpoints()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"endpoints#{clusterTag}",
        body=request.model_dump(mode="json"),
        plan=lambda caller: service.render(clusterTag, request),
        run=lambda caller: service.create(clusterTag, request),
        status=201,
    )


@router.get(
    "/clusters/<clusterTag>/endpoints/<name>",
    allow=READ,
    operation_id="inference_endpoint_get",
    summary="Read a managed inference endpoint: state, conditions, workers, SageMaker endpoint",
    description="The endpoint's state as the inference operator reports it (DeploymentPending, "
    "DeploymentInProgress, DeploymentComplete, DeploymentFailed, Deletion…), its conditions, its workers with node "
    "and phase, routing and L2 cache, and the SageMaker endpoint it is called through. To wait for "
    "DeploymentComplete, call inference_endpoint_wait rather than this again and again.",
    tags=["endpoints"],
)
def get_endpoint(clusterTag: ClusterTagPath, name: EndpointNamePath) -> EndpointDetail:
    return wiring.endpoints().get(clusterTag, name)


@router.get(
    "/clusters/<clusterTag>/endpoints/<name>/wait",
    allow=READ,
    operation_id="inference_endpoint_wait",
    summary="Wait for a managed inference endpoint to be deployed (long poll)",
    description="Returns as soon as the endpoint's state is DeploymentComplete or DeploymentFailed (after a delete: "
    "DeletionComplete or DeletionFailed), or after timeoutSeconds with its current detail; `done` says which. Call "
    "again while `done` is false; a failed deployment's conditions say why.",
    tags=["endpoints"],
    openapi_extensions=WORKLOAD_LONG_POLL,
)
def wait_endpoint(clusterTag: ClusterTagPath, name: EndpointNamePath, timeoutSeconds: WaitSeconds = 20) -> EndpointWait:
    refuse_unknown_parameters(router, "timeoutSeconds")
    return wiring.workload_waits().endpoint(clusterTag, name, timeoutSeconds)


@router.post(
    "/clusters/<clusterTag>/endpoints/<name>/chat",
    allow=operator("call an inference endpoint"),
    operation_id="inference_endpoint_call",
    summary="Call a managed inference endpoint with an OpenAI chat completion",
    description="Sends an OpenAI chat completion request (`messages`, or `prompt` for one user message; optional "
    "`max_tokens`, `temperature`, `top_p`) to the endpoint's SageMaker endpoint and returns the model's OpenAI chat "
    "completion (the answer is `choices[0].message.content`). The endpoint must be DeploymentComplete. Same "
    "contract as inference_call_model, which calls a self-managed model service.",
    tags=["endpoints"],
)
def call_endpoint(clusterTag: ClusterTagPath, name: EndpointNamePath, request: ChatCompletionRequest) -> ChatCompletion:
    return wiring.endpoints().chat(clusterTag, name, request)


@router.delete(
    "/clusters/<clusterTag>/endpoints/<name>",
    allow=operator("delete an inference endpoint"),
    operation_id="inference_endpoint_delete",
    summary="Delete a managed inference endpoint, its workers and its SageMaker endpoint",
    description="Destructive: the endpoint stops answering. Without confirmationToken, returns the plan (state, "
    "workers, SageMaker endpoint) and a single-use token (10 minutes) and changes nothing: show it to the person "
    "and ask them to confirm. Repeat with the token to delete (dryRun false in the answer); the operator then "
    "removes the workers (states DeletionPending, DeletionInProgress) and the SageMaker endpoint.",
    tags=["endpoints"],
    responses={200: response_doc(Plan, "The plan and its token, or (dryRun false) what is being deleted")},
)
def delete_endpoint(
    clusterTag: ClusterTagPath,
    name: EndpointNamePath,
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.endpoints()
    return plan_or_run(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"DELETE /clusters/{clusterTag}/endpoints/{name}",
        body={"confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_delete(clusterTag, name, caller),
        run=lambda caller: service.delete(clusterTag, name, confirmationToken or "", caller),
    )
