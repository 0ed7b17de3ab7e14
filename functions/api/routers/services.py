"""/clusters/{clusterTag}/services: the cluster's model services with readiness and URLs, and an OpenAI-compatible
chat completion through one of them (only the cluster's own model services; never a URL from the caller)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path

from api.authorization import READ, Routes, operator
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath
from controlplane import wiring
from controlplane.models.chat import ChatCompletion, ChatCompletionRequest
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.serving import DEPLOYMENT_NAME_PATTERN, ServiceList

router = Routes()

ServicePath = Annotated[str, Path(pattern=DEPLOYMENT_NAME_PATTERN, description="A model service's name.")]


@router.get(
    "/clusters/<clusterTag>/services",
    allow=READ,
    operation_id="inference_list_services",
    summary="List the cluster's model services with readiness and URLs",
    description="Every model service (internal and external), in pages of `limit`: ready once a model server "
    "behind it answers its health check, with its in-cluster URL and, for external ones, the load balancer's. "
    "Poll this after inference_deploy_container until the service is ready; then inference_call_model.",
    tags=["inference"],
)
def list_services(
    clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None
) -> ServiceList:
    refuse_unknown_parameters(router)
    return wiring.model_servers().services(clusterTag, None, limit, continue_)


@router.get(
    "/clusters/<clusterTag>/services/public",
    allow=READ,
    operation_id="inference_list_public_services",
    summary="List the cluster's external model services (behind a load balancer)",
    description="The model services behind an internet-facing load balancer, with readiness and the load "
    "balancer's URL once it has an address.",
    tags=["inference"],
)
def list_public_services(
    clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None
) -> ServiceList:
    refuse_unknown_parameters(router)
    return wiring.model_servers().services(clusterTag, True, limit, continue_)


@router.post(
    "/clusters/<clusterTag>/services/<name>/chat",
    allow=operator("call a model"),
    operation_id="inference_call_model",
    summary="Call a model: an OpenAI-compatible chat completion",
    description="Sends an OpenAI chat completion request (`prompt` for one user message, or `messages`; optional "
    "`max_tokens`, `temperature`, `top_p`) to one of the cluster's model services (inference_list_services names "
    "them) and returns the server's OpenAI chat completion (the answer is `choices[0].message.content`): through "
    "the Kubernetes API's service proxy for an internal service, its load balancer for an external one. 409 while "
    "the service is not ready yet. Same contract as inference_endpoint_call, which calls a managed endpoint.",
    tags=["inference"],
)
def call_model(clusterTag: ClusterTagPath, name: ServicePath, request: ChatCompletionRequest) -> ChatCompletion:
    return wiring.model_servers().chat(clusterTag, name, request)
