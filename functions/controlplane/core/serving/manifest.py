"""Renders a model server into its Deployment and Service, and reads those objects back into views.

What belongs here: the shape of the objects (labels, placement, probes, mounts, the Service of each type) and how
they read. Whether the cluster can run the server is `service.py`'s question; the pool's rules are `pool.py`'s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.core.serving.command import HEALTH_PATH, ServingCommand
from controlplane.models.downloads import SECRET_TOKEN_KEY
from controlplane.models.serving import (
    DeploymentSummary,
    DeployModelRequest,
    ModelService,
    ServiceType,
    ServingPod,
)
from controlplane.models.status import GPU_RESOURCE, INSTANCE_TYPE_LABEL

DEPLOYMENT_API, SERVICE_API = "apps/v1", "v1"
# Every pod, Service and Deployment of a model server carries its name under this label.
MODEL_LABEL = "instantstart.aws/model-server"
# Every model Service says how it is reached (`external` or `internal`), so a list can select either.
EXPOSURE_LABEL = "instantstart.aws/exposure"
# A pool worker's binding: `unassigned`, or the name of the service it serves.
BUSINESS_LABEL = "business"
UNASSIGNED = "unassigned"
# The Deployment's settings that the objects do not show plainly (engine, service type, model, source).
SERVING_ANNOTATION = "instantstart.aws/serving"
# A bound worker is the last pod its ReplicaSet removes on scale-in.
DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
BOUND_DELETION_COST = "10000"
# The scheduling gate Kueue puts on a team's server pod until it admits the pod [src: kubernetes-sigs/kueue
# pkg/controller/jobs/pod/constants SchedulingGateName].
ADMISSION_GATE = "kueue.x-k8s.io/admission"
CONTAINER_NAME = "server"
S3_MOUNT, SHM_MOUNT, CACHE_MOUNT = "/s3", "/dev/shm", "/root/.cache"
LOAD_BALANCER_ANNOTATIONS = {
    "service.beta.kubernetes.io/aws-load-balancer-type": "external",
    "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
    "service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing",
}


@dataclass(frozen=True)
class ServerPlacement:
    """Where the server runs and what it reads, as the service resolved them against the cluster."""

    namespace: str
    claim: str | None
    token_secret: str | None
    model_source_uri: str | None
    # A team's server: its Kueue queue and priority labels, on the Deployment and its pod template.
    labels: dict[str, str] = field(default_factory=dict)


def token_secret_name(deployment: str) -> str:
    """The Secret a deploy creates for a request's Hugging Face token."""
    return f"{deployment}-hf-token"


def token_secret_of(deployment: dict[str, Any]) -> str | None:
    """The Secret the server's token comes from, as its Deployment names it (read without reading any Secret)."""
    for variable in container(deployment).get("env") or []:
        if variable.get("name") == "HF_TOKEN":
            name = ((variable.get("valueFrom") or {}).get("secretKeyRef") or {}).get("name")
            return str(name) if name else None
    return None


def deployment(request: DeployModelRequest, command: ServingCommand, placement: ServerPlacement) -> dict[str, Any]:
    """The Deployment: `replicas` pods with `gpus` GPUs each, ready when the server's health path answers."""
    pod_labels = {**placement.labels, MANAGED_LABEL: MANAGED_LABEL_VALUE, MODEL_LABEL: request.name}
    if request.serviceType == ServiceType.POOL:
        pod_labels[BUSINESS_LABEL] = UNASSIGNED
    settings = {
        "engine": command.engine,
        "serviceType": request.serviceType.value,
        "model": command.model,
        "gpus": request.gpus,
        "port": command.port,
        **({"modelSourceUri": placement.model_source_uri} if placement.model_source_uri else {}),
    }
    return {
        "apiVersion": DEPLOYMENT_API,
        "kind": "Deployment",
        "metadata": {
            "name": request.name,
            "namespace": placement.namespace,
            "labels": {**placement.labels, MANAGED_LABEL: MANAGED_LABEL_VALUE, MODEL_LABEL: request.name},
            "annotations": {SERVING_ANNOTATION: json.dumps(settings, sort_keys=True)},
        },
        "spec": {
            "replicas": request.replicas,
            "selector": {"matchLabels": {MODEL_LABEL: request.name}},
            "template": {"metadata": {"labels": pod_labels}, "spec": _pod_spec(request, command, placement)},
        },
    }


def _pod_spec(request: DeployModelRequest, command: ServingCommand, placement: ServerPlacement) -> dict[str, Any]:
    env: list[dict[str, Any]] = [{"name": "HF_HOME", "value": f"{CACHE_MOUNT}/huggingface"}]
    env += [{"name": name, "value": value} for name, value in sorted(request.environment.items())]
    if placement.token_secret:
        reference = {"secretKeyRef": {"name": placement.token_secret, "key": SECRET_TOKEN_KEY}}
        env += [{"name": "HF_TOKEN", "valueFrom": reference}]
    gpus = {GPU_RESOURCE: str(request.gpus)}
    volumes: list[dict[str, Any]] = [
        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": f"{request.sharedMemoryGi}Gi"}},
        {"name": "cache", "emptyDir": {}},
    ]
    mounts: list[dict[str, Any]] = [
        {"name": "shm", "mountPath": SHM_MOUNT},
        {"name": "cache", "mountPath": CACHE_MOUNT},
    ]
    if placement.claim:
        volumes.append({"name": "s3", "persistentVolumeClaim": {"claimName": placement.claim, "readOnly": True}})
        mounts.append({"name": "s3", "mountPath": S3_MOUNT, "readOnly": True})
    probe = {
        "httpGet": {"path": HEALTH_PATH, "port": command.port},
        "periodSeconds": 10,
        "failureThreshold": 3,
    }
    container = {
        "name": CONTAINER_NAME,
        "image": command.image,
        "command": list(command.argv),
        "ports": [{"name": "http", "containerPort": command.port}],
        "env": env,
        "resources": {"requests": gpus, "limits": gpus},
        "readinessProbe": probe,
        # Loading weights takes minutes: the server is given up to an hour before it is restarted.
        "startupProbe": {**probe, "failureThreshold": 360},
        "volumeMounts": mounts,
    }
    spec: dict[str, Any] = {
        "containers": [container],
        "volumes": volumes,
        "tolerations": [{"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}],
    }
    if request.instanceType:
        spec["nodeSelector"] = {INSTANCE_TYPE_LABEL: request.instanceType}
    return spec


def service(name: str, namespace: str, model: str, port: int, external: bool, bound: bool = False) -> dict[str, Any]:
    """The Service of a model server (or, `bound`, of the pool workers bound to `name`)."""
    selector = {MODEL_LABEL: model, **({BUSINESS_LABEL: name} if bound else {})}
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "labels": {
            MANAGED_LABEL: MANAGED_LABEL_VALUE,
            MODEL_LABEL: model,
            EXPOSURE_LABEL: "external" if external else "internal",
        },
    }
    if external:
        metadata["annotations"] = LOAD_BALANCER_ANNOTATIONS
    return {
        "apiVersion": SERVICE_API,
        "kind": "Service",
        "metadata": metadata,
        "spec": {
            "type": "LoadBalancer" if external else "ClusterIP",
            "selector": selector,
            "ports": [{"name": "http", "port": port, "targetPort": port, "protocol": "TCP"}],
        },
    }


# --- reading objects back ---------------------------------------------------------------------------


def settings(deployment: dict[str, Any]) -> dict[str, Any]:
    raw = ((deployment.get("metadata") or {}).get("annotations") or {}).get(SERVING_ANNOTATION) or "{}"
    try:
        found = json.loads(raw)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def container(deployment: dict[str, Any]) -> dict[str, Any]:
    spec = (((deployment.get("spec") or {}).get("template") or {}).get("spec")) or {}
    return dict((spec.get("containers") or [{}])[0])


def summary(deployment: dict[str, Any]) -> DeploymentSummary:
    found, server = settings(deployment), container(deployment)
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    replicas, ready = int(spec.get("replicas") or 0), int(status.get("readyReplicas") or 0)
    selector = ((spec.get("template") or {}).get("spec") or {}).get("nodeSelector") or {}
    return DeploymentSummary(
        name=deployment["metadata"]["name"],
        namespace=deployment["metadata"].get("namespace"),
        serviceType=ServiceType(found.get("serviceType", ServiceType.INTERNAL.value)),
        engine=found.get("engine", "custom"),
        model=found.get("model"),
        image=str(server.get("image") or ""),
        gpus=int(found.get("gpus") or 0),
        replicas=replicas,
        readyReplicas=ready,
        status="Scaled to zero" if replicas == 0 else ("Ready" if ready >= replicas else "Loading"),
        instanceType=selector.get(INSTANCE_TYPE_LABEL),
        port=int(found.get("port") or 0),
        createdAt=deployment["metadata"].get("creationTimestamp"),
    )


def pod_ready(pod: dict[str, Any]) -> bool:
    status = pod.get("status") or {}
    conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or []}
    return status.get("phase") == "Running" and conditions.get("Ready") == "True"


def gated(pod: dict[str, Any]) -> bool:
    """Whether Kueue still holds the pod (its admission gate is on)."""
    return any(gate.get("name") == ADMISSION_GATE for gate in (pod.get("spec") or {}).get("schedulingGates") or [])


def serving_pod(pod: dict[str, Any]) -> ServingPod:
    business = (pod["metadata"].get("labels") or {}).get(BUSINESS_LABEL)
    return ServingPod(
        name=pod["metadata"]["name"],
        uid=pod["metadata"].get("uid", ""),
        node=(pod.get("spec") or {}).get("nodeName"),
        ready=pod_ready(pod),
        queued=gated(pod),
        service=None if business in (None, UNASSIGNED) else business,
    )


def model_service(obj: dict[str, Any], ready_pods: int) -> ModelService:
    metadata, spec = obj["metadata"], obj.get("spec") or {}
    port = int(((spec.get("ports") or [{}])[0]).get("port") or 0)
    external = spec.get("type") == "LoadBalancer"
    ingress = ((obj.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    address = (ingress[0].get("hostname") or ingress[0].get("ip")) if ingress else None
    return ModelService(
        name=metadata["name"],
        namespace=metadata["namespace"],
        type="external" if external else "internal",
        model=(metadata.get("labels") or {}).get(MODEL_LABEL, ""),
        port=port,
        ready=ready_pods > 0,
        readyPods=ready_pods,
        url=f"http://{metadata['name']}.{metadata['namespace']}.svc.cluster.local:{port}",
        externalUrl=f"http://{address}:{port}" if address else None,
    )
