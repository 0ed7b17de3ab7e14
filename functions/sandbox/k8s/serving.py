"""Simulated model servers: the Deployment controller for model-server Deployments, and the OpenAI-compatible echo
model that answers behind their Services through the API server's service proxy.

What it does:
- keeps a model-server Deployment's pods at its replicas, each on a simulated node with the GPUs it asks for;
  a new pod is Running but not Ready until `seconds_to_load` (loading the weights) have passed; pods are created
  through the API, so admission webhooks see them: one created with a scheduling gate (Kueue's, for a team's
  server) stays Pending, unscheduled, until the gate is removed;
- scales in as a ReplicaSet ranks pods: unscheduled first, then Pending before Running, not ready before ready, then
  the lowest `controller.kubernetes.io/pod-deletion-cost` (unassigned pool workers before bound ones); deletes the
  pods with their Deployment;
- keeps `status.replicas` / `readyReplicas` current;
- answers `/health`, `/v1/models` and `POST /v1/chat/completions` of a Service with a ready pod behind it (503 when
  none is ready, as the API server's proxy does), the echo saying it is a sandbox model.
Relabelling a pod (the model pool) is an ordinary patch: the pod, and its uid, stay.
A LoadBalancer Service gets no address in the sandbox, so external services are not callable here.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from datetime import UTC, datetime
from typing import Any

from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.pods import node_ready, pod_container, running_container

JsonObject = dict[str, Any]

MODEL_LABEL = "instantstart.aws/model-server"
# What the scheduler says of a gated pod [src: kubernetes pkg/apis/core/types.go PodReasonSchedulingGated].
_SCHEDULING_GATED = {
    "type": "PodScheduled",
    "status": "False",
    "reason": "SchedulingGated",
    "message": "Scheduling is blocked due to non-empty scheduling gates",
}
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}
GPU = "nvidia.com/gpu"
SANDBOX_NOTICE = "I am a sandbox echo model, not a real LLM."
_LOG = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ModelServingSimulation:
    def __init__(self, emulator: KubernetesEmulator, seconds_to_load: float) -> None:
        self._emulator = emulator
        # How long a model server takes to load its model before its readiness probe passes.
        self.seconds_to_load = seconds_to_load
        # The Deployment controller's. Re-entrant: a status write inside the lock notifies this controller again on
        # the same thread. Its pod writes run Kueue's controller, which takes Kueue's lock: nothing Kueue's writes
        # notify (a pod Kueue ungates) takes this lock, or the two would deadlock.
        self._lock = threading.RLock()
        # Scheduling a pod (read, bind, write), from either controller's thread; it takes no other lock.
        self._scheduling = threading.RLock()

    def install(self) -> None:
        self._emulator.add_listener(self._on_event)
        self._emulator.set_service_proxy(self.proxy)

    # --- the Deployment controller ----------------------------------------------------------

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        if MODEL_LABEL not in (obj["metadata"].get("labels") or {}):
            return
        if obj.get("kind") == "Pod" and event_type == "MODIFIED":
            self._released(cluster, obj)
            return
        if obj.get("kind") != "Deployment":
            return
        store = self._emulator.store(cluster)
        namespace, name = obj["metadata"].get("namespace", "default"), obj["metadata"]["name"]
        try:
            with self._lock:
                if event_type == "DELETED":
                    for pod in self._pods(store, namespace, name):
                        store.delete("", "v1", "pods", namespace, pod["metadata"]["name"])
                    return
                self._reconcile(cluster, store, obj)
        except LookupError:
            pass  # the cluster went away

    def _reconcile(self, cluster: str, store: ClusterStore, deployment: JsonObject) -> None:
        namespace, name = deployment["metadata"]["namespace"], deployment["metadata"]["name"]
        desired = int((deployment.get("spec") or {}).get("replicas") or 0)
        pods = self._pods(store, namespace, name)
        if len(pods) > desired:
            by_rank = sorted(pods, key=_deletion_rank)
            for pod in by_rank[: len(pods) - desired]:
                store.delete("", "v1", "pods", namespace, pod["metadata"]["name"])
        for _ in range(desired - len(pods)):
            self._create_pod(cluster, store, deployment)
        self._update_status(store, namespace, name)

    def _create_pod(self, cluster: str, store: ClusterStore, deployment: JsonObject) -> None:
        """Create a pod from the template through the API (admission webhooks see it), then schedule it."""
        namespace, name = deployment["metadata"]["namespace"], deployment["metadata"]["name"]
        template = deployment["spec"]["template"]
        container = ((template.get("spec") or {}).get("containers") or [{}])[0]
        pod_name = f"{name}-{secrets.token_hex(4)}"
        owner = {"apiVersion": "apps/v1", "kind": "Deployment", "name": name, "uid": deployment["metadata"]["uid"]}
        metadata = template.get("metadata") or {}
        created = store.create(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": pod_name,
                    "namespace": namespace,
                    "labels": dict(metadata.get("labels") or {}),
                    "annotations": dict(metadata.get("annotations") or {}),
                    "ownerReferences": [owner],
                },
                "spec": {**(template.get("spec") or {}), "containers": [pod_container(container)]},
            }
        )
        if not created["spec"].get("schedulingGates"):
            self._schedule(cluster, store, created)
        elif (found := store.get("", "v1", "pods", namespace, pod_name)) and found["spec"].get("schedulingGates"):
            found["status"]["conditions"] = [{**_SCHEDULING_GATED, "lastTransitionTime": _now()}]
            store.put(found)

    def _schedule(self, cluster: str, store: ClusterStore, pod: JsonObject) -> None:
        """The scheduler and the kubelet: an ungated, unscheduled pod goes Running on the first node that fits it and
        is Ready once the model loaded; one that fits no node stays Pending."""
        with self._scheduling:
            spec = pod.get("spec") or {}
            if spec.get("schedulingGates") or spec.get("nodeName"):
                return
            container = (spec.get("containers") or [{}])[0]
            gpus = int(((container.get("resources") or {}).get("limits") or {}).get(GPU, 0))
            nodes = [node for node in store.list("", "v1", "nodes") if _fits(node, spec, gpus)]
            if not nodes:
                return
            namespace, pod_name = pod["metadata"]["namespace"], pod["metadata"]["name"]
            spec["nodeName"] = nodes[0]["metadata"]["name"]
            pod["status"] = {
                "phase": "Running",
                "startTime": _now(),
                "conditions": [{"type": "Ready", "status": "False", "reason": "LoadingModel"}],
                "containerStatuses": [running_container({"name": "server", **container}, ready=False)],
            }
            store.put(pod)
            deployment = (pod["metadata"].get("labels") or {}).get(MODEL_LABEL, "")
            timer = threading.Timer(self.seconds_to_load, self._ready, args=(cluster, namespace, deployment, pod_name))
            timer.daemon = True
            timer.start()

    def _released(self, cluster: str, pod: JsonObject) -> None:
        """A pod whose scheduling gates were all removed (Kueue admitted it) is scheduled."""
        spec = pod.get("spec") or {}
        if spec.get("schedulingGates") or spec.get("nodeName") or (pod.get("status") or {}).get("phase") != "Pending":
            return
        try:
            store = self._emulator.store(cluster)
        except LookupError:
            return
        with self._scheduling:
            found = store.get("", "v1", "pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
            if found is not None:
                self._schedule(cluster, store, found)

    def _ready(self, cluster: str, namespace: str, deployment: str, pod_name: str) -> None:
        try:
            store = self._emulator.store(cluster)
            with self._lock:
                pod = store.get("", "v1", "pods", namespace, pod_name)
                if pod is None:
                    return
                pod["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": _now()}]
                for status in pod["status"].get("containerStatuses") or []:
                    status["ready"] = True
                store.put(pod)
                self._update_status(store, namespace, deployment)
        except LookupError:
            pass
        except Exception:  # noqa: BLE001 - a simulator thread must not die silently
            _LOG.exception("serving simulator failed on %s/%s", namespace, pod_name)

    def _update_status(self, store: ClusterStore, namespace: str, name: str) -> None:
        deployment = store.get("apps", "v1", "deployments", namespace, name)
        if deployment is None:
            return
        pods = self._pods(store, namespace, name)
        ready = sum(_ready(pod) for pod in pods)
        status = {"replicas": len(pods), "readyReplicas": ready, "availableReplicas": ready}
        if {k: (deployment.get("status") or {}).get(k) for k in status} != status:
            deployment["status"] = {**(deployment.get("status") or {}), **status}
            store.put(deployment)

    @staticmethod
    def _pods(store: ClusterStore, namespace: str, name: str) -> list[JsonObject]:
        return store.list("", "v1", "pods", namespace, f"{MODEL_LABEL}={name}")

    # --- the service proxy: the echo model ----------------------------------------------------

    def proxy(self, cluster: str, namespace: str, service: str, path: str, method: str, body: bytes) -> tuple[int, str]:
        """The answer (status, JSON text) of `method path` on a Service's ready pods."""
        store = self._emulator.store(cluster)
        name = service.split(":", 1)[0]
        found = store.get("", "v1", "services", namespace, name)
        if found is None:
            return 404, json.dumps({"kind": "Status", "message": f'services "{name}" not found', "code": 404})
        selector = ",".join(f"{k}={v}" for k, v in ((found.get("spec") or {}).get("selector") or {}).items())
        ready = [pod for pod in store.list("", "v1", "pods", namespace, selector) if _ready(pod)] if selector else []
        if not ready:
            message = f'no endpoints available for service "{name}"'
            return 503, json.dumps({"kind": "Status", "message": message, "code": 503})
        model = _served_model(store, namespace, ready[0])
        if path == "/health" and method == "GET":
            return 200, "{}"
        if path == "/v1/models" and method == "GET":
            return 200, json.dumps({"object": "list", "data": [{"id": model, "object": "model"}]})
        if path == "/v1/chat/completions" and method == "POST":
            return _echo(model, body)
        return 404, json.dumps({"detail": "Not Found"})


def _echo(model: str, body: bytes) -> tuple[int, str]:
    try:
        request = json.loads(body or b"{}")
        messages = request["messages"]
        prompt = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    except (ValueError, KeyError, TypeError, AttributeError):
        return 400, json.dumps({"object": "error", "message": "messages: a list of chat messages is required"})
    content = f"{SANDBOX_NOTICE} You said: {prompt}"
    words = len(str(prompt).split())
    completion = {
        "id": f"chatcmpl-sandbox-{time.monotonic_ns():x}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model") or model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"},
        ],
        "usage": {"prompt_tokens": words, "completion_tokens": len(content.split()), "total_tokens": words},
    }
    return 200, json.dumps(completion)


def _served_model(store: ClusterStore, namespace: str, pod: JsonObject) -> str:
    name = (pod["metadata"].get("labels") or {}).get(MODEL_LABEL, "")
    deployment = store.get("apps", "v1", "deployments", namespace, name) or {}
    raw = ((deployment.get("metadata") or {}).get("annotations") or {}).get("instantstart.aws/serving") or "{}"
    try:
        return str(json.loads(raw).get("model") or name)
    except (ValueError, AttributeError):
        return name


def _deletion_rank(pod: JsonObject) -> tuple[bool, int, bool, int]:
    """Which pod a scale-in deletes first, as a ReplicaSet ranks them: unassigned, then Pending < Unknown < Running
    (another phase counts as Pending), then not ready, then the lowest deletion cost [src: kubernetes
    pkg/controller/controller_utils.go ActivePodsWithRanks.Less; its later keys (pods doubled up on a node, time
    ready, restarts, age) are not simulated]."""
    phase = (pod.get("status") or {}).get("phase")
    annotations = pod["metadata"].get("annotations") or {}
    return (
        bool(pod["spec"].get("nodeName")),
        _PHASE_RANK.get(str(phase), 0),
        _ready(pod),
        int(annotations.get(DELETION_COST, "0")),
    )


def _ready(pod: JsonObject) -> bool:
    conditions = {c.get("type"): c.get("status") for c in (pod.get("status") or {}).get("conditions") or []}
    return conditions.get("Ready") == "True"


def _fits(node: JsonObject, spec: JsonObject, gpus: int) -> bool:
    if not node_ready(node):
        return False
    labels = node["metadata"].get("labels") or {}
    if any(labels.get(key) != value for key, value in (spec.get("nodeSelector") or {}).items()):
        return False
    return int((node.get("status") or {}).get("allocatable", {}).get(GPU, 0)) >= gpus
