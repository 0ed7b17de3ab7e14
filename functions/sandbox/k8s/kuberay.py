"""A simulated KubeRay controller: RayJobs and RayClusters get a head pod and worker pods on the simulated nodes;
a RayJob's driver writes log lines over time and the job ends SUCCEEDED.

What it does, per object (one thread each, driven by emulator events):
- a RayJob: `jobDeploymentStatus` Initializing, then its Ray cluster (named `<job>-<suffix>`, in
  `status.rayClusterName`): a head pod and each worker group's replicas, one node each, that match the templates'
  node selector (and required node affinity) with the GPUs they ask for, plus the submitter pod (any node);
  `jobDeploymentStatus` Running with `jobStatus` RUNNING; `LOG_LINES` driver lines to every pod, one every
  `seconds_per_line`; then `jobStatus` SUCCEEDED, `jobDeploymentStatus` Complete, the submitter pod Succeeded and,
  with `shutdownAfterJobFinishes`, the Ray cluster's pods deleted;
- a RayCluster: its head and worker pods, `status.state` ready, a few start-up lines; it runs until deleted;
- deleting either deletes its pods.
It serves nothing itself: the ray.io kinds exist once the kuberayOperator feature has applied its CRDs.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.pods import JsonObject, PodRequest, SimulatedPods, now

GROUP, VERSION = "ray.io", "v1"
API_VERSION = f"{GROUP}/{VERSION}"
PLURALS = {"RayJob": "rayjobs", "RayCluster": "rayclusters"}
CLUSTER_LABEL = "ray.io/cluster"  # on the head and worker pods, as KubeRay labels them
SUBMITTER_LABEL = "job-name"  # on the submitter pod, as its Kubernetes Job labels it
LOG_LINES = 30
_LOG = logging.getLogger(__name__)

Key = tuple[str, str, str, str]  # (cluster, namespace, kind, name)


class KubeRaySimulation:
    def __init__(self, emulator: KubernetesEmulator, seconds_per_line: float) -> None:
        self._emulator = emulator
        # How long a Ray job takes per step (log line); a test may lengthen it to watch a job run.
        self.seconds_per_line = seconds_per_line
        self._lock = threading.Lock()
        self._deleted: set[Key] = set()
        self._pods = SimulatedPods(emulator)

    def install(self) -> None:
        self._emulator.add_listener(self._on_event)

    # --- events -----------------------------------------------------------------------------

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        if obj.get("apiVersion") != API_VERSION or obj.get("kind") not in PLURALS:
            return
        key: Key = (cluster, obj["metadata"].get("namespace", "default"), obj["kind"], obj["metadata"]["name"])
        if event_type == "ADDED":
            with self._lock:
                self._deleted.discard(key)
            threading.Thread(target=self._run, args=(key,), daemon=True, name=f"ray-{key[3]}").start()
        elif event_type == "DELETED":
            with self._lock:
                self._deleted.add(key)
            self._delete_pods(cluster, key[1], _cluster_name(obj), key[3])

    # --- one object -------------------------------------------------------------------------

    def _run(self, key: Key) -> None:
        try:
            if key[2] == "RayJob":
                self._drive_job(key)
            else:
                self._drive_cluster(key)
        except LookupError:
            pass  # the object (or its cluster) went away
        except Exception:  # noqa: BLE001 - a simulator thread must not die silently
            _LOG.exception("KubeRay simulator failed on %s", key)

    def _drive_job(self, key: Key) -> None:
        cluster, namespace, _, name = key
        store = self._emulator.store(cluster)
        job = self._object(store, key)
        ray_cluster = _cluster_name(job)
        self._set_status(store, key, jobDeploymentStatus="Initializing", rayClusterName=ray_cluster, startTime=now())
        submitter = PodRequest(
            f"{name}-submit", job["spec"].get("submitterPodTemplate") or {}, {SUBMITTER_LABEL: name}, exclusive=False
        )
        pods = self._pods.place(store, job, [*_ray_pods(ray_cluster, job["spec"]["rayClusterSpec"]), submitter])
        if pods is None:
            self._pods.event(store, job, "Unschedulable", f"No nodes fit the Ray cluster of {name}", warning=True)
            return
        self._set_status(
            store, key, jobDeploymentStatus="Running", jobStatus="RUNNING", rayClusterStatus={"state": "ready"}
        )
        self._pods.event(store, job, "Running", f"Ray job {name} is running on Ray cluster {ray_cluster}")
        for line in range(1, LOG_LINES + 1):
            if self._gone(key):
                return
            for pod in pods:
                text = f"(TaskRunner) step:{line}/{LOG_LINES} critic/score/mean={line / LOG_LINES:.3f}"
                self._pods.append_log(cluster, namespace, pod, text)
            time.sleep(self.seconds_per_line)
        self._pods.set_phase(store, namespace, submitter.name, "Succeeded")
        self._set_status(store, key, jobStatus="SUCCEEDED", jobDeploymentStatus="Complete", endTime=now())
        self._pods.event(store, self._object(store, key), "Completed", f"Ray job {name} succeeded")
        if job["spec"].get("shutdownAfterJobFinishes"):
            self._pods.delete(store, namespace, f"{CLUSTER_LABEL}={ray_cluster}")

    def _drive_cluster(self, key: Key) -> None:
        cluster, namespace, _, name = key
        store = self._emulator.store(cluster)
        ray_cluster = self._object(store, key)
        pods = self._pods.place(store, ray_cluster, _ray_pods(name, ray_cluster["spec"]))
        if pods is None:
            self._pods.event(store, ray_cluster, "Unschedulable", f"No nodes fit Ray cluster {name}", warning=True)
            return
        for pod in pods:
            self._pods.append_log(cluster, namespace, pod, f"Ray runtime started on {pod}.")
        self._set_status(store, key, state="ready", readyWorkerReplicas=len(pods) - 1)
        self._pods.event(store, ray_cluster, "Ready", f"Ray cluster {name} is ready")

    # --- helpers ----------------------------------------------------------------------------

    def _gone(self, key: Key) -> bool:
        with self._lock:
            return key in self._deleted

    @staticmethod
    def _object(store: ClusterStore, key: Key) -> JsonObject:
        _, namespace, kind, name = key
        found = store.get(GROUP, VERSION, PLURALS[kind], namespace, name)
        if found is None:
            raise LookupError(name)
        return found

    def _set_status(self, store: ClusterStore, key: Key, **fields: Any) -> None:
        obj = self._object(store, key)
        obj.setdefault("status", {}).update(fields)
        store.put(obj)

    def _delete_pods(self, cluster: str, namespace: str, ray_cluster: str, name: str) -> None:
        store = self._emulator.store(cluster)
        self._pods.delete(store, namespace, f"{CLUSTER_LABEL}={ray_cluster}")
        self._pods.delete(store, namespace, f"{SUBMITTER_LABEL}={name}")
        self._pods.forget_logs(cluster, namespace, f"{name}-")


def _cluster_name(obj: JsonObject) -> str:
    """A RayCluster's own name; the name of the Ray cluster KubeRay makes for a RayJob (`<job>-<5 characters>`)."""
    metadata = obj["metadata"]
    if obj["kind"] != "RayJob":
        return str(metadata["name"])
    return f"{metadata['name']}-{str(metadata.get('uid') or 'xxxxx').replace('-', '')[-5:]}"


def _ray_pods(ray_cluster: str, spec: JsonObject) -> list[PodRequest]:
    """The head pod and every worker group's replicas, a node each, labelled as KubeRay labels them."""
    head = PodRequest(
        f"{ray_cluster}-head", spec["headGroupSpec"].get("template") or {}, _labels(ray_cluster, "head", "headgroup")
    )
    workers = [
        PodRequest(
            f"{ray_cluster}-{group['groupName']}-worker-{index}",
            group.get("template") or {},
            _labels(ray_cluster, "worker", group["groupName"]),
        )
        for group in spec.get("workerGroupSpecs") or []
        for index in range(int(group.get("replicas") or 0))
    ]
    return [head, *workers]


def _labels(ray_cluster: str, node_type: str, group: str) -> dict[str, str]:
    return {CLUSTER_LABEL: ray_cluster, "ray.io/node-type": node_type, "ray.io/group": group}
