"""A simulated HyperPod training operator: HyperPodPyTorchJobs get pods on the simulated nodes, log lines over time,
then Succeeded; a killed process is recovered by the job's restart policy.

What it does, per job (one thread each, driven by emulator events):
- schedules one pod per replica on a node that matches the template's node selector (and required node affinity)
  with the GPUs it asks for, and marks the pods Running and the job Running;
- appends `LOG_LINES` training-step lines to every pod's log, one every `seconds_per_line`;
- applies a kill (:meth:`kill`, `POST /sandbox/job-faults`): the job restarts in place (`status.restartCount` + 1,
  each container's restartCount + 1) until `numRestartBeforeFullJobRestart`, then restarts fully (pods recreated,
  `status.restartStatus.fullJobRestartCount` + 1) until `maxFullJobRestarts`, then fails;
- ends Succeeded (condition Completed), and deletes the pods unless `cleanPodPolicy` is None;
- deletes a job's pods when the job is deleted.
The CRD is served in every cluster as soon as it is active (the sandbox does not tie it to the add-on).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator

JsonObject = dict[str, Any]

GROUP, VERSION, PLURAL, KIND = "sagemaker.amazonaws.com", "v1", "hyperpodpytorchjobs", "HyperPodPyTorchJob"
API_VERSION = f"{GROUP}/{VERSION}"
GPU = "nvidia.com/gpu"
LOG_LINES = 30
_LOG = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Kill:
    after_lines: int


class TrainingOperatorSimulation:
    def __init__(self, emulator: KubernetesEmulator, seconds_per_line: float) -> None:
        self._emulator = emulator
        # How long a job takes per step (log line); a test may lengthen it to watch a job run.
        self.seconds_per_line = seconds_per_line
        self._lock = threading.Lock()
        self._kills: dict[tuple[str, str, str], _Kill] = {}
        self._deleted: set[tuple[str, str, str]] = set()
        self._logs: dict[tuple[str, str, str], str] = {}

    def install(self) -> None:
        self._emulator.add_listener(self._on_event)

    def serve(self, cluster: str) -> None:
        """Serve the HyperPodPyTorchJob kind in the cluster."""
        names = {"plural": PLURAL, "singular": KIND.lower(), "kind": KIND, "listKind": f"{KIND}List"}
        version = {
            "name": VERSION,
            "served": True,
            "storage": True,
            "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            "subresources": {"status": {}},
        }
        crd = {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{PLURAL}.{GROUP}"},
            "spec": {"group": GROUP, "names": names, "scope": "Namespaced", "versions": [version]},
        }
        self._emulator.store(cluster).put(crd)

    def kill(self, cluster: str, namespace: str, job: str, after_lines: int = 0) -> None:
        """Kill the job's process once it has written `after_lines` lines (now, if it already has)."""
        with self._lock:
            self._kills[(cluster, namespace, job)] = _Kill(after_lines)

    # --- events -----------------------------------------------------------------------------

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        if obj.get("apiVersion") != API_VERSION or obj.get("kind") != KIND:
            return
        key = (cluster, obj["metadata"].get("namespace", "default"), obj["metadata"]["name"])
        if event_type == "ADDED":
            with self._lock:
                self._deleted.discard(key)
            threading.Thread(target=self._run, args=(key,), daemon=True, name=f"job-{key[2]}").start()
        elif event_type == "DELETED":
            with self._lock:
                self._deleted.add(key)
            self._delete_pods(self._emulator.store(cluster), key[1], key[2])
            self._forget_logs(key)

    # --- one job ----------------------------------------------------------------------------

    def _run(self, key: tuple[str, str, str]) -> None:
        try:
            self._drive(key)
        except LookupError:
            pass  # the job (or its cluster) went away
        except Exception:  # noqa: BLE001 - a simulator thread must not die silently
            _LOG.exception("training simulator failed on %s", key)

    def _drive(self, key: tuple[str, str, str]) -> None:
        cluster, namespace, name = key
        store = self._emulator.store(cluster)
        job = self._job(store, namespace, name)
        restart = (job["spec"].get("runPolicy") or {}).get("restartPolicy") or {}
        in_place_budget = int(restart.get("numRestartBeforeFullJobRestart", 3))
        full_budget = int(restart.get("maxFullJobRestarts", 1))
        restarts = full_restarts = 0
        pods = self._schedule(store, job)
        if pods is None:
            self._set_status(store, namespace, name, "Created", reason="Unschedulable")
            return
        self._set_status(store, namespace, name, "Running")
        line = 0
        while line < LOG_LINES:
            if self._gone(key):
                return
            if self._killed(key, line):
                if restarts < in_place_budget:
                    restarts += 1
                    self._restart_in_place(store, key, pods, restarts, full_restarts)
                    continue
                if full_restarts < full_budget:
                    full_restarts += 1
                    restarts = 0
                    self._delete_pods(store, namespace, name)
                    self._forget_logs(key)
                    self._set_status(store, namespace, name, "Restarting", 0, full_restarts)
                    pods = self._schedule(store, self._job(store, namespace, name)) or []
                    self._set_status(store, namespace, name, "Running", 0, full_restarts)
                    line = 0
                    continue
                self._set_status(store, namespace, name, "Failed", restarts, full_restarts, reason="RestartsExhausted")
                return
            line += 1
            for pod in pods:
                self._append_log(cluster, namespace, pod, f"step {line}/{LOG_LINES} loss={2.0 / line:.4f}")
            time.sleep(self.seconds_per_line)
        for pod in pods:
            self._set_pod_phase(store, namespace, pod, "Succeeded")
        self._set_status(store, namespace, name, "Completed", restarts, full_restarts)
        if (job["spec"].get("runPolicy") or {}).get("cleanPodPolicy", "All") != "None":
            self._delete_pods(store, namespace, name)

    def _forget_logs(self, key: tuple[str, str, str]) -> None:
        cluster, namespace, name = key
        with self._lock:
            for log in [log for log in self._logs if log[:2] == (cluster, namespace) and log[2].startswith(f"{name}-")]:
                del self._logs[log]

    def _gone(self, key: tuple[str, str, str]) -> bool:
        with self._lock:
            return key in self._deleted

    def _killed(self, key: tuple[str, str, str], line: int) -> bool:
        with self._lock:
            kill = self._kills.get(key)
            if kill is None or line < kill.after_lines:
                return False
            del self._kills[key]
            return True

    @staticmethod
    def _job(store: ClusterStore, namespace: str, name: str) -> JsonObject:
        job = store.get(GROUP, VERSION, PLURAL, namespace, name)
        if job is None:
            raise LookupError(name)
        return job

    def _schedule(self, store: ClusterStore, job: JsonObject) -> list[str] | None:
        """Create one Running pod per replica on matching nodes; None when too few nodes match."""
        namespace, name = job["metadata"]["namespace"], job["metadata"]["name"]
        replica = job["spec"]["replicaSpecs"][0]
        template = replica.get("template") or {}
        spec = template.get("spec") or {}
        gpus = int(((spec.get("containers") or [{}])[0].get("resources") or {}).get("limits", {}).get(GPU, 0))
        nodes = [node for node in store.list("", "v1", "nodes") if _fits(node, spec, gpus)]
        count = int(replica.get("replicas") or 0)
        if len(nodes) < count:
            return None
        pods = []
        for index in range(count):
            pod_name = f"{name}-{replica['name']}-{index}"
            labels = {**((template.get("metadata") or {}).get("labels") or {}), "job-name": name}
            owner = {"apiVersion": API_VERSION, "kind": KIND, "name": name, "uid": job["metadata"].get("uid", "")}
            containers = [{k: v for k, v in c.items() if k != "resources"} for c in spec.get("containers") or []]
            store.put(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": pod_name,
                        "namespace": namespace,
                        "labels": labels,
                        "ownerReferences": [owner],
                    },
                    "spec": {"nodeName": nodes[index]["metadata"]["name"], "containers": containers},
                    "status": {
                        "phase": "Running",
                        "startTime": _now(),
                        "containerStatuses": [
                            {
                                "name": c.get("name", "main"),
                                "ready": True,
                                "restartCount": 0,
                                "image": c.get("image", ""),
                            }
                            for c in containers
                        ],
                    },
                }
            )
            pods.append(pod_name)
        return pods

    def _restart_in_place(
        self, store: ClusterStore, key: tuple[str, str, str], pods: list[str], restarts: int, full_restarts: int
    ) -> None:
        cluster, namespace, name = key
        self._set_status(store, namespace, name, "Restarting", restarts, full_restarts)
        for pod_name in pods:
            pod = store.get("", "v1", "pods", namespace, pod_name)
            if pod is None:
                continue
            for container in pod["status"].get("containerStatuses") or []:
                container["restartCount"] = int(container.get("restartCount", 0)) + 1
            store.put(pod)
            self._append_log(cluster, namespace, pod_name, "process killed; restarted in place")
        self._set_status(store, namespace, name, "Running", restarts, full_restarts)

    def _append_log(self, cluster: str, namespace: str, pod: str, line: str) -> None:
        """Add a line to the pod's log (a pod created anew starts an empty log)."""
        with self._lock:
            text = self._logs[(cluster, namespace, pod)] = (
                self._logs.get((cluster, namespace, pod), "") + f"{_now()} {line}\n"
            )
        self._emulator.set_pod_log(cluster, namespace, pod, text)

    @staticmethod
    def _set_pod_phase(store: ClusterStore, namespace: str, pod_name: str, phase: str) -> None:
        pod = store.get("", "v1", "pods", namespace, pod_name)
        if pod is not None:
            pod["status"]["phase"] = phase
            for container in pod["status"].get("containerStatuses") or []:
                container["ready"] = False
            store.put(pod)

    @staticmethod
    def _delete_pods(store: ClusterStore, namespace: str, name: str) -> None:
        for pod in store.list("", "v1", "pods", namespace, f"job-name={name}"):
            store.delete("", "v1", "pods", namespace, pod["metadata"]["name"])

    def _set_status(
        self,
        store: ClusterStore,
        namespace: str,
        name: str,
        condition: str,
        restarts: int = 0,
        full_restarts: int = 0,
        reason: str | None = None,
    ) -> None:
        job = self._job(store, namespace, name)
        status = job.setdefault("status", {})
        now = _now()
        conditions = [{**c, "status": "False"} for c in status.get("conditions") or [] if c["type"] != condition]
        conditions.append(
            {"type": condition, "status": "True", "reason": reason or condition, "lastTransitionTime": now}
        )
        status.update(
            conditions=conditions,
            restartCount=restarts,
            restartStatus={"fullJobRestartCount": full_restarts},
            startTime=status.get("startTime") or now,
        )
        if condition in ("Completed", "Failed"):
            status["completionTime"] = now
        store.put(job)
        self._event(store, namespace, name, reason or condition, f"Job {name} is {condition}")

    @staticmethod
    def _event(store: ClusterStore, namespace: str, name: str, reason: str, message: str) -> None:
        now = _now()
        store.put(
            {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": f"{name}.{time.monotonic_ns():x}", "namespace": namespace},
                "involvedObject": {"apiVersion": API_VERSION, "kind": KIND, "name": name, "namespace": namespace},
                "reason": reason,
                "message": message,
                "type": "Warning" if reason in ("Failed", "RestartsExhausted", "Restarting") else "Normal",
                "firstTimestamp": now,
                "lastTimestamp": now,
                "count": 1,
            }
        )


def _fits(node: JsonObject, spec: JsonObject, gpus: int) -> bool:
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
