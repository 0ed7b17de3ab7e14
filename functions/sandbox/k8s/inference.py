"""A simulated HyperPod inference operator: InferenceEndpointConfigs and JumpStartModels get worker pods on the
simulated GPU nodes and a SageMaker endpoint that answers with the sandbox's echo model.

What it does, per endpoint object (one thread each, driven by emulator events):
- deploys: `status.state` DeploymentPending → DeploymentInProgress (the workers' pods are scheduled, Pending while
  the model loads for `seconds_to_load`) → DeploymentComplete (pods Running, the SageMaker endpoint registered with
  :class:`sandbox.aws.sagemaker_runtime.SageMakerRuntimeExtension`); DeploymentFailed when no node of the instance
  type has the GPUs a worker asks for;
- deletes as the operator's finalizer does: a deleted object comes back with a `deletionTimestamp` in
  DeletionPending, then DeletionInProgress (pods deleted, endpoint deregistered), then it is gone.
Workers carry the object's labels (so `instantstart.aws/endpoint=<name>` selects them). Both CRDs are served in
every cluster as soon as it is active (the sandbox does not tie them to the add-on).
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime
from typing import Any, Protocol

from sandbox.k8s.crds import published_crd
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.pods import node_ready, running_container, waiting_container

JsonObject = dict[str, Any]

GROUP, VERSION = "inference.sagemaker.aws.amazon.com", "v1"
API_VERSION = f"{GROUP}/{VERSION}"
KINDS = {"InferenceEndpointConfig": "inferenceendpointconfigs", "JumpStartModel": "jumpstartmodels"}
GPU = "nvidia.com/gpu"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
_LOG = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class EndpointRegistry(Protocol):
    def register(self, endpoint: str) -> None: ...

    def deregister(self, endpoint: str) -> None: ...


class InferenceOperatorSimulation:
    def __init__(self, emulator: KubernetesEmulator, endpoints: EndpointRegistry, seconds_to_load: float) -> None:
        self._emulator = emulator
        self._endpoints = endpoints
        # How long a worker takes to load its model; a test may lengthen it to watch a deployment.
        self.seconds_to_load = seconds_to_load
        self._lock = threading.Lock()
        # Objects this simulator is deleting for good (their last DELETED event is its own).
        self._finishing: set[tuple[str, str, str, str]] = set()

    def install(self) -> None:
        self._emulator.add_listener(self._on_event)

    def serve(self, cluster: str) -> None:
        """Serve both inference kinds in the cluster, with the inference operator's published CRDs."""
        store = self._emulator.store(cluster)
        for plural in KINDS.values():
            store.put(published_crd(f"{plural}.{GROUP}"))

    # --- events -----------------------------------------------------------------------------

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        if obj.get("apiVersion") != API_VERSION or obj.get("kind") not in KINDS:
            return
        meta = obj["metadata"]
        key = (cluster, str(obj["kind"]), meta.get("namespace", "default"), meta["name"])
        if event_type == "ADDED" and not meta.get("deletionTimestamp"):
            self._start(self._deploy, key)
        elif event_type == "DELETED":
            with self._lock:
                if key in self._finishing:
                    self._finishing.discard(key)
                    return
            self._start(self._delete, key, obj)

    @staticmethod
    def _start(target: Any, *args: Any) -> None:
        def run() -> None:
            try:
                target(*args)
            except LookupError:
                pass  # the object (or its cluster) went away
            except Exception:  # noqa: BLE001 - a simulator thread must not die silently
                _LOG.exception("inference operator simulator failed on %s", args[0])

        threading.Thread(target=run, daemon=True, name=f"endpoint-{args[0][3]}").start()

    # --- deploy -----------------------------------------------------------------------------

    def _deploy(self, key: tuple[str, str, str, str]) -> None:
        cluster, kind, namespace, _ = key
        store = self._emulator.store(cluster)
        obj = self._object(store, key)
        self._set_state(store, key, "DeploymentPending", "Pending", "Waiting for workers to be scheduled")
        spec = obj.get("spec") or {}
        instance_type = spec.get("instanceType") or (spec.get("server") or {}).get("instanceType")
        worker = spec.get("worker") or {}
        gpus = int(((worker.get("resources") or {}).get("limits") or {}).get(GPU, 1 if kind == "JumpStartModel" else 0))
        nodes = [
            node
            for node in store.list("", "v1", "nodes")
            if node_ready(node)
            and (node["metadata"].get("labels") or {}).get(INSTANCE_TYPE_LABEL) == instance_type
            and int(((node.get("status") or {}).get("allocatable") or {}).get(GPU, 0)) >= gpus
        ]
        if not nodes:
            message = f"No node of instance type {instance_type} has {gpus} GPU(s) free"
            self._set_state(store, key, "DeploymentFailed", "Unschedulable", message)
            return
        replicas = int(spec.get("replicas") or 1)
        image = str(worker.get("image") or f"jumpstart/{(spec.get('model') or {}).get('modelId', 'model')}")
        pods = [self._put_pod(store, obj, index, nodes[index % len(nodes)], image) for index in range(replicas)]
        self._set_state(store, key, "DeploymentInProgress", "Loading", f"{replicas} worker(s) loading the model")
        time.sleep(self.seconds_to_load)
        if self._deleting(store, key):
            return
        for pod in pods:
            self._set_pod_running(store, namespace, pod)
        self._endpoints.register(_endpoint_name(obj))
        self._set_state(store, key, "DeploymentComplete", "Ready", f"{replicas} worker(s) ready")

    def _put_pod(self, store: ClusterStore, obj: JsonObject, index: int, node: JsonObject, image: str) -> str:
        meta = obj["metadata"]
        pod_name = f"{meta['name']}-worker-{index}"
        owner = {"apiVersion": API_VERSION, "kind": obj["kind"], "name": meta["name"], "uid": meta.get("uid", "")}
        store.put(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": pod_name,
                    "namespace": meta.get("namespace", "default"),
                    "labels": dict(meta.get("labels") or {}),
                    "ownerReferences": [owner],
                },
                "spec": {"nodeName": node["metadata"]["name"], "containers": [{"name": "worker", "image": image}]},
                "status": {
                    "phase": "Pending",
                    "containerStatuses": [waiting_container({"name": "worker", "image": image})],
                },
            }
        )
        return pod_name

    @staticmethod
    def _set_pod_running(store: ClusterStore, namespace: str, pod_name: str) -> None:
        pod = store.get("", "v1", "pods", namespace, pod_name)
        if pod is not None:
            pod["status"]["phase"] = "Running"
            pod["status"]["startTime"] = _now()
            pod["status"]["containerStatuses"] = [running_container(c) for c in pod["spec"]["containers"]]
            store.put(pod)

    # --- delete (the operator's finalizer) --------------------------------------------------

    def _delete(self, key: tuple[str, str, str, str], obj: JsonObject) -> None:
        cluster, kind, namespace, name = key
        store = self._emulator.store(cluster)
        obj["metadata"]["deletionTimestamp"] = _now()
        obj["metadata"]["finalizers"] = ["inference.sagemaker.aws.amazon.com/finalizer"]
        store.put(obj)
        self._set_state(store, key, "DeletionPending", "Deleting", "Deletion requested")
        time.sleep(self.seconds_to_load / 2)
        self._set_state(store, key, "DeletionInProgress", "Deleting", "Removing workers and the SageMaker endpoint")
        for pod in store.list("", "v1", "pods", namespace, f"instantstart.aws/endpoint={name}"):
            store.delete("", "v1", "pods", namespace, pod["metadata"]["name"])
        self._endpoints.deregister(_endpoint_name(obj))
        time.sleep(self.seconds_to_load / 2)
        with self._lock:
            self._finishing.add(key)
        if store.delete(GROUP, VERSION, KINDS[kind], namespace, name) is None:
            with self._lock:
                self._finishing.discard(key)

    # --- helpers ----------------------------------------------------------------------------

    @staticmethod
    def _object(store: ClusterStore, key: tuple[str, str, str, str]) -> JsonObject:
        _, kind, namespace, name = key
        obj = store.get(GROUP, VERSION, KINDS[kind], namespace, name)
        if obj is None:
            raise LookupError(name)
        return obj

    def _deleting(self, store: ClusterStore, key: tuple[str, str, str, str]) -> bool:
        obj = store.get(GROUP, VERSION, KINDS[key[1]], key[2], key[3])
        return obj is None or bool(obj["metadata"].get("deletionTimestamp"))

    def _set_state(
        self, store: ClusterStore, key: tuple[str, str, str, str], state: str, reason: str, message: str
    ) -> None:
        obj = self._object(store, key)
        status = obj.setdefault("status", {})
        condition = {
            "type": "Ready" if state == "DeploymentComplete" else state,
            "status": "True",
            "reason": reason,
            "message": message,
            "lastTransitionTime": _now(),
        }
        status.update(state=state, conditions=[condition])
        store.put(obj)


def _endpoint_name(obj: JsonObject) -> str:
    spec = obj.get("spec") or {}
    return str(spec.get("endpointName") or (spec.get("sageMakerEndpoint") or {}).get("name") or "")
