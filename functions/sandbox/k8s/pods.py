"""What the simulated workload controllers share (the training operator in `training.py`, the KubeRay controller in
`kuberay.py`): pods placed on the simulated nodes that fit them (as the template's ServiceAccount), their logs
written line by line, their phases, their deletion, and the events of the objects that own them.

Not here: when a controller creates, restarts or finishes its pods (each controller's own rules).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator

JsonObject = dict[str, Any]
GPU = "nvidia.com/gpu"
DOCKER_HUB = "docker.io"


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class PodRequest:
    """One pod to place: its name, the pod template it is made from, and labels the controller adds.

    An `exclusive` pod (a training process with its GPUs) gets a node no other pod of the same placement has; a
    pod that is not (a Ray job's submitter) goes to any node that fits it."""

    name: str
    template: JsonObject
    labels: dict[str, str] = field(default_factory=dict)
    exclusive: bool = True


class SimulatedPods:
    """Pods of the controllers' objects on one emulator, with the logs the controllers write to them."""

    def __init__(self, emulator: KubernetesEmulator) -> None:
        self._emulator = emulator
        self._lock = threading.Lock()
        self._logs: dict[tuple[str, str, str], str] = {}

    def place(self, store: ClusterStore, owner: JsonObject, requests: list[PodRequest]) -> list[str] | None:
        """Create the pods Running on nodes that fit them, owned by `owner`; None (and no pod) when one fits none."""
        nodes = store.list("", "v1", "nodes")
        taken: set[str] = set()
        chosen: list[str] = []
        for request in requests:
            spec = request.template.get("spec") or {}
            gpus = int(((spec.get("containers") or [{}])[0].get("resources") or {}).get("limits", {}).get(GPU, 0))
            free = [
                node["metadata"]["name"]
                for node in nodes
                if _fits(node, spec, gpus) and not (request.exclusive and node["metadata"]["name"] in taken)
            ]
            if not free:
                return None
            chosen.append(free[0])
            if request.exclusive:
                taken.add(free[0])
        for request, node in zip(requests, chosen, strict=True):
            store.put(_pod(owner, request, node))
        return [request.name for request in requests]

    def append_log(self, cluster: str, namespace: str, pod: str, line: str) -> None:
        """Add a line to the pod's log (a pod created anew starts an empty log)."""
        with self._lock:
            text = self._logs[(cluster, namespace, pod)] = (
                self._logs.get((cluster, namespace, pod), "") + f"{now()} {line}\n"
            )
        self._emulator.set_pod_log(cluster, namespace, pod, text)

    def forget_logs(self, cluster: str, namespace: str, prefix: str) -> None:
        """Drop the logs kept for the pods whose names start with `prefix`."""
        with self._lock:
            for log in [log for log in self._logs if log[:2] == (cluster, namespace) and log[2].startswith(prefix)]:
                del self._logs[log]

    @staticmethod
    def set_phase(store: ClusterStore, namespace: str, pod_name: str, phase: str) -> None:
        """A pod whose containers ended: Succeeded (exit code 0) or Failed (1), each container terminated."""
        pod = store.get("", "v1", "pods", namespace, pod_name)
        if pod is not None:
            pod["status"]["phase"] = phase
            succeeded = phase == "Succeeded"
            for container in pod["status"].get("containerStatuses") or []:
                terminated = {
                    "exitCode": 0 if succeeded else 1,
                    "reason": "Completed" if succeeded else "Error",
                    "startedAt": ((container.get("state") or {}).get("running") or {}).get("startedAt"),
                    "finishedAt": now(),
                    "containerID": container.get("containerID"),
                }
                container.update(ready=False, started=False, state={"terminated": terminated})
            store.put(pod)

    @staticmethod
    def delete(store: ClusterStore, namespace: str, selector: str) -> None:
        """Delete the pods of `namespace` that the label selector matches."""
        for pod in store.list("", "v1", "pods", namespace, selector):
            store.delete("", "v1", "pods", namespace, pod["metadata"]["name"])

    @staticmethod
    def event(store: ClusterStore, owner: JsonObject, reason: str, message: str, warning: bool = False) -> None:
        """Record an event about `owner`."""
        metadata, stamp = owner["metadata"], now()
        store.put(
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": f"{metadata['name']}.{time.monotonic_ns():x}", "namespace": metadata["namespace"]},
                "involvedObject": {
                    "apiVersion": owner["apiVersion"],
                    "kind": owner["kind"],
                    "name": metadata["name"],
                    "namespace": metadata["namespace"],
                },
                "reason": reason,
                "message": message,
                "type": "Warning" if warning else "Normal",
                "firstTimestamp": stamp,
                "lastTimestamp": stamp,
                "count": 1,
            }
        )


def _pod(owner: JsonObject, request: PodRequest, node: str) -> JsonObject:
    metadata = owner["metadata"]
    template_metadata = request.template.get("metadata") or {}
    spec = request.template.get("spec") or {}
    containers = [pod_container(c) for c in spec.get("containers") or []]
    reference = {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": metadata["name"],
        "uid": metadata.get("uid", ""),
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": request.name,
            "namespace": metadata["namespace"],
            "labels": {**(template_metadata.get("labels") or {}), **request.labels},
            "ownerReferences": [reference],
        },
        # Kubernetes runs a pod as its namespace's `default` ServiceAccount unless the template names another.
        "spec": {
            "nodeName": node,
            "serviceAccountName": spec.get("serviceAccountName", "default"),
            "containers": containers,
        },
        "status": {
            "phase": "Running",
            "startTime": now(),
            "containerStatuses": [running_container(container) for container in containers],
        },
    }


def pod_container(container: JsonObject) -> JsonObject:
    """A template's container as the API server stores it in a pod: its `resources` kept, a limit without a request
    requested at the limit (Kubernetes defaulting, "Resource Management for Pods and Containers")."""
    resources = container.get("resources")
    if not resources:
        return dict(container)
    requests = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    return {**container, "resources": {**resources, **({"requests": requests} if requests else {})}}


def image_reference(image: str) -> str:
    """An image as the kubelet reports it (containerd's normalized reference): a Docker Hub image with its registry and
    `library/` for an official image, and `:latest` when it names neither a tag nor a digest."""
    first, _, rest = image.partition("/")
    if not rest or ("." not in first and ":" not in first and first != "localhost"):
        image = f"{DOCKER_HUB}/{image if rest else f'library/{image}'}"
    if "@" not in image and ":" not in image.rsplit("/", 1)[-1]:
        image += ":latest"
    return image


def image_id(image: str) -> str:
    """The digest the kubelet resolved the image to, as `repository@sha256:...` (the reference's own digest when it
    names one; else a digest that stands for the tag's, the same for the same image)."""
    reference = image_reference(image)
    if "@" in reference:
        return reference
    repository = reference.rsplit(":", 1)[0]
    return f"{repository}@sha256:{hashlib.sha256(reference.encode()).hexdigest()}"


def running_container(container: JsonObject, ready: bool = True) -> JsonObject:
    """A started container's status as the kubelet reports it: its image pulled (`image`, `imageID`), a container id
    and a running state; `ready` false while its readiness probe fails."""
    image = container.get("image", "")
    return {
        "name": container.get("name", "main"),
        "image": image_reference(image),
        "imageID": image_id(image),
        "containerID": f"containerd://{secrets.token_hex(32)}",
        "ready": ready,
        "restartCount": 0,
        "started": True,
        "state": {"running": {"startedAt": now()}},
        "lastState": {},
    }


def waiting_container(
    container: JsonObject, reason: str = "ContainerCreating", message: str | None = None
) -> JsonObject:
    """A container the kubelet has not started (its image not pulled yet, or failing to): its image as the pod spec
    names it, an empty `imageID` and no container id, as the kubelet reports a container the runtime does not have."""
    waiting = {"reason": reason, **({"message": message} if message else {})}
    return {
        "name": container.get("name", "main"),
        "image": container.get("image", ""),
        "imageID": "",
        "ready": False,
        "restartCount": 0,
        "started": False,
        "state": {"waiting": waiting},
        "lastState": {},
    }


def node_ready(node: JsonObject) -> bool:
    """The kubelet reports the node Ready. Kubernetes taints any other node `node.kubernetes.io/not-ready` (NoSchedule),
    so the scheduler places no pod there (Kubernetes documentation, "Taint Nodes by Condition")."""
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(condition.get("type") == "Ready" and condition.get("status") == "True" for condition in conditions)


def _fits(node: JsonObject, spec: JsonObject, gpus: int) -> bool:
    if not node_ready(node):
        return False
    labels = node["metadata"].get("labels") or {}
    if any(labels.get(key) != value for key, value in (spec.get("nodeSelector") or {}).items()):
        return False
    affinity = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    for term in affinity.get("nodeSelectorTerms") or []:
        for requirement in term.get("matchExpressions") or []:
            if requirement.get("operator") == "In" and labels.get(requirement["key"]) not in requirement["values"]:
                return False
    return int((node.get("status") or {}).get("allocatable", {}).get(GPU, 0)) >= gpus
