"""Renders a `CreateEndpointRequest` into an InferenceEndpointConfig or a JumpStartModel, and reads one back.

What belongs here: the shape of the two objects (model source, worker, cache, routing, autoscaling, the SageMaker
endpoint name) and how their status reads. Whether the cluster can serve the endpoint is `service.py`'s question.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.models.endpoints import (
    CreateEndpointRequest,
    EndpointCondition,
    EndpointKind,
    EndpointState,
    EndpointSummary,
    L2CacheBackend,
    ModelSpec,
    RoutingStrategy,
)
from controlplane.models.status import GPU_RESOURCE

API_VERSION = "inference.sagemaker.aws.amazon.com/v1"
API_GROUP = API_VERSION.split("/")[0]
PLURALS = {
    EndpointKind.INFERENCE_ENDPOINT_CONFIG: "inferenceendpointconfigs",
    EndpointKind.JUMPSTART_MODEL: "jumpstartmodels",
}
# Every endpoint object carries its name under this label; the operator copies it to the workers' pods [inferred].
ENDPOINT_LABEL = "instantstart.aws/endpoint"
MODEL_MOUNT = "/opt/ml/model"
# The path of the worker that SageMaker forwards invocations to: the OpenAI-compatible one of vLLM, SGLang and LMI.
INVOCATION_PATH = "v1/chat/completions"
PUBLIC_HUB = "SageMakerPublicHub"


@dataclass(frozen=True)
class ResolvedSource:
    """Where the model is, as the service resolved it (a job's output or the cluster's bucket filled in)."""

    type: str  # s3 | fsx | huggingface
    config: dict[str, Any]
    location: str | None
    label: str


def sagemaker_endpoint_name(cluster_tag: str, name: str) -> str:
    """The SageMaker endpoint the operator registers for the endpoint (unique in the account and region)."""
    return f"is-{cluster_tag}-{name}"


def render(
    cluster_tag: str, namespace: str, request: CreateEndpointRequest, source: ResolvedSource | None
) -> dict[str, Any]:
    """The object the request describes: InferenceEndpointConfig for `model` (with its resolved `source`),
    JumpStartModel for `jumpStart`."""
    endpoint = sagemaker_endpoint_name(cluster_tag, request.name)
    spec: dict[str, Any]
    if request.model is not None and source is not None:
        spec = {
            "modelName": request.name,
            "endpointName": endpoint,
            "instanceType": request.instanceType,
            "replicas": request.replicas,
            "invocationEndpoint": INVOCATION_PATH,
            "modelSourceConfig": {
                "modelSourceType": source.type,
                **source.config,
                **({"modelLocation": source.location} if source.location else {}),
            },
            "worker": _worker(request.model),
        }
    elif request.jumpStart is not None:
        model = request.jumpStart
        spec = {
            "model": {
                "modelId": model.modelId,
                "acceptEula": model.acceptEula,
                "modelHubName": PUBLIC_HUB,
                **({"modelVersion": model.modelVersion} if model.modelVersion else {}),
            },
            "server": {"instanceType": request.instanceType},
            "sageMakerEndpoint": {"name": endpoint},
            "replicas": request.replicas,
        }
    else:
        raise ValueError("a model endpoint needs its resolved source")
    spec.update(_around_the_model(request))
    return {
        "apiVersion": API_VERSION,
        "kind": request.kind.value,
        "metadata": {
            "name": request.name,
            "namespace": namespace,
            "labels": {MANAGED_LABEL: MANAGED_LABEL_VALUE, ENDPOINT_LABEL: request.name},
        },
        "spec": spec,
    }


def _worker(model: ModelSpec) -> dict[str, Any]:
    resources: dict[str, str] = {}
    if model.gpus:
        resources[GPU_RESOURCE] = str(model.gpus)
    if model.cpu:
        resources["cpu"] = model.cpu
    if model.memoryGi:
        resources["memory"] = f"{model.memoryGi}Gi"
    return {
        "image": model.image,
        "resources": {"requests": resources, "limits": resources},
        "modelInvocationPort": {"containerPort": model.invocationPort, "name": "http"},
        "modelVolumeMount": {"name": "model-weights", "mountPath": MODEL_MOUNT},
        **({"args": list(model.args)} if model.args else {}),
        "environmentVariables": [{"name": k, "value": v} for k, v in sorted(model.environment.items())],
    }


def _around_the_model(request: CreateEndpointRequest) -> dict[str, Any]:
    """The cache, routing and autoscaling blocks both kinds share."""
    spec: dict[str, Any] = {}
    if request.kvCache is not None:
        cache: dict[str, Any] = {"enableL1Cache": request.kvCache.enableL1Cache, "enableL2Cache": False}
        if request.kvCache.l2 is not None:
            l2 = request.kvCache.l2
            cache["enableL2Cache"] = True
            cache["l2CacheSpec"] = {
                "l2CacheBackend": l2.backend.value,
                **({"l2CacheLocalUrl": l2.localUrl} if l2.localUrl else {}),
            }
        spec["kvCacheSpec"] = cache
    if request.routing is not None:
        spec["intelligentRoutingSpec"] = {"enabled": True, "routingStrategy": request.routing.strategy.value}
    if request.autoscaling is not None:
        scaling = request.autoscaling
        spec["autoScalingSpec"] = {
            "minReplicaCount": scaling.minReplicas,
            "maxReplicaCount": scaling.maxReplicas,
            "cooldownPeriod": scaling.cooldownSeconds,
        }
    return spec


# --- reading an endpoint object back ---------------------------------------------------------------


def state(obj: dict[str, Any]) -> EndpointState:
    reported = (obj.get("status") or {}).get("state")
    known = {state.value for state in EndpointState}
    return EndpointState(reported) if reported in known else EndpointState.DEPLOYMENT_PENDING


def routing(obj: dict[str, Any]) -> RoutingStrategy | None:
    """The routing strategy the object was created with (None: no intelligent routing)."""
    spec = (obj.get("spec") or {}).get("intelligentRoutingSpec") or {}
    if not spec.get("enabled"):
        return None
    return RoutingStrategy(spec.get("routingStrategy") or RoutingStrategy.PREFIX_AWARE.value)


def l2_cache(obj: dict[str, Any]) -> L2CacheBackend | None:
    cache = (obj.get("spec") or {}).get("kvCacheSpec") or {}
    backend = (cache.get("l2CacheSpec") or {}).get("l2CacheBackend") if cache.get("enableL2Cache") else None
    return L2CacheBackend(str(backend).lower()) if backend else None


def endpoint_name(obj: dict[str, Any]) -> str | None:
    spec = obj.get("spec") or {}
    name = spec.get("endpointName") or (spec.get("sageMakerEndpoint") or {}).get("name")
    return str(name) if name else None


def conditions(obj: dict[str, Any]) -> list[EndpointCondition]:
    return [
        EndpointCondition(
            type=str(c.get("type")), status=str(c.get("status")), reason=c.get("reason"), message=c.get("message")
        )
        for c in (obj.get("status") or {}).get("conditions") or []
    ]


def summary(obj: dict[str, Any]) -> EndpointSummary:
    spec = obj.get("spec") or {}
    kind = EndpointKind(obj["kind"])
    return EndpointSummary(
        name=obj["metadata"]["name"],
        kind=kind,
        state=state(obj),
        model=_model(kind, spec),
        instanceType=spec.get("instanceType") or (spec.get("server") or {}).get("instanceType"),
        replicas=int(spec.get("replicas") or 1),
        createdAt=obj["metadata"].get("creationTimestamp"),
    )


def _model(kind: EndpointKind, spec: dict[str, Any]) -> str:
    if kind is EndpointKind.JUMPSTART_MODEL:
        return str((spec.get("model") or {}).get("modelId", ""))
    source = spec.get("modelSourceConfig") or {}
    location = source.get("modelLocation") or ""
    if source.get("modelSourceType") == "huggingface":
        return str((source.get("huggingFaceModel") or {}).get("modelId", ""))
    if source.get("modelSourceType") == "s3":
        return f"s3://{(source.get('s3Storage') or {}).get('bucketName', '')}/{location}"
    if source.get("modelSourceType") == "fsx":
        return f"fsx://{(source.get('fsxStorage') or {}).get('fileSystemId', '')}/{location}"
    return str(spec.get("modelName", ""))
