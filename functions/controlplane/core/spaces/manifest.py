"""The Workspace object of a space (`workspace.jupyter.org/v1alpha1`, the HyperPod spaces add-on's kind, whose schema
is jupyter-infra/jupyter-k8s's CRD), and what its status says: the space's state and how to reach it.

The controller names a space's Service `workspace-<name>-service` and serves the IDE on port 8888; its status says
Available, Progressing, Stopped or Degraded (jupyter-k8s internal/controller/constants.go).
"""

from __future__ import annotations

from typing import Any

from controlplane.core.naming import MANAGED_LABEL, MANAGED_LABEL_VALUE
from controlplane.models.spaces import CPU_IMAGE, GPU_IMAGE, CreateSpaceRequest, SpaceStatus, SpaceView
from controlplane.models.status import GPU_RESOURCE

API_GROUP = "workspace.jupyter.org"
API_VERSION = f"{API_GROUP}/v1alpha1"
KIND = "Workspace"
PLURAL = "workspaces"
SPACE_LABEL = "instantstart.aws/space"
HOME = "/home/sagemaker-user"  # the SageMaker Distribution images' user, the add-on's default mount path
S3_MOUNT_PATH = f"{HOME}/workspace/s3"
S3_VOLUME = "s3"
IDE_PORT = 8888


def render(request: CreateSpaceRequest, namespace: str, claim: str) -> dict[str, Any]:
    """The space's Workspace: running, the image and GPUs asked for, the S3 claim at ~/workspace/s3."""
    spec: dict[str, Any] = {
        "displayName": request.name,
        "image": image_of(request),
        "appType": request.appType,
        "desiredStatus": "Running",
        "volumes": [{"name": S3_VOLUME, "persistentVolumeClaimName": claim, "mountPath": S3_MOUNT_PATH}],
    }
    if request.gpus:
        gpus = {GPU_RESOURCE: str(request.gpus)}
        spec["resources"] = {"requests": dict(gpus), "limits": dict(gpus)}
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {
            "name": request.name,
            "namespace": namespace,
            "labels": {MANAGED_LABEL: MANAGED_LABEL_VALUE, SPACE_LABEL: request.name},
        },
        "spec": spec,
    }


def image_of(request: CreateSpaceRequest) -> str:
    return request.image or (GPU_IMAGE if request.gpus else CPU_IMAGE)


def view(workspace: dict[str, Any]) -> SpaceView:
    metadata, spec = workspace["metadata"], workspace.get("spec") or {}
    namespace, name = metadata.get("namespace", "default"), metadata["name"]
    status = state(workspace)
    limits = (spec.get("resources") or {}).get("limits") or {}
    mounts = [v["mountPath"] for v in spec.get("volumes") or [] if v.get("name") == S3_VOLUME]
    service = (workspace.get("status") or {}).get("serviceName")
    return SpaceView(
        name=name,
        appType=spec.get("appType") or "jupyterlab",
        image=spec.get("image") or "",
        gpus=int(limits.get(GPU_RESOURCE) or 0),
        desiredStatus=spec.get("desiredStatus") or "Running",
        status=status,
        namespace=namespace,
        s3MountPath=mounts[0] if mounts else "",
        open=_port_forward(namespace, service) if status == "Running" and service else None,
    )


def state(workspace: dict[str, Any]) -> SpaceStatus:
    """The space's state from its desired status and the controller's conditions."""
    desired = (workspace.get("spec") or {}).get("desiredStatus") or "Running"
    conditions = {c.get("type"): c.get("status") for c in (workspace.get("status") or {}).get("conditions") or []}
    if conditions.get("Degraded") == "True":
        return "Failed"
    if desired == "Stopped":
        return "Stopped" if conditions.get("Stopped") == "True" else "Stopping"
    return "Running" if conditions.get("Available") == "True" else "Starting"


def _port_forward(namespace: str, service: str) -> str:
    return (
        f"kubectl port-forward -n {namespace} service/{service} {IDE_PORT}:{IDE_PORT}, then open "
        f"http://localhost:{IDE_PORT} (the S3 claim is at ~/workspace/s3)."
    )
