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

from sandbox.k8s.crds import published_crd
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.pods import JsonObject, PodRequest, SimulatedPods, now

GROUP, VERSION, PLURAL, KIND = "sagemaker.amazonaws.com", "v1", "hyperpodpytorchjobs", "HyperPodPyTorchJob"
API_VERSION = f"{GROUP}/{VERSION}"
LOG_LINES = 30
_LOG = logging.getLogger(__name__)


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
        self._started: set[tuple[str, str, str]] = set()
        self._pods = SimulatedPods(emulator)

    def install(self) -> None:
        self._emulator.add_listener(self._on_event)

    def serve(self, cluster: str) -> None:
        """Serve the HyperPodPyTorchJob kind in the cluster, with the schema the HyperPod SDK publishes for it."""
        self._emulator.store(cluster).put(published_crd(f"{PLURAL}.{GROUP}"))

    def kill(self, cluster: str, namespace: str, job: str, after_lines: int = 0) -> None:
        """Kill the job's process once it has written `after_lines` lines (now, if it already has)."""
        with self._lock:
            self._kills[(cluster, namespace, job)] = _Kill(after_lines)

    # --- events -----------------------------------------------------------------------------

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        if obj.get("apiVersion") != API_VERSION or obj.get("kind") != KIND:
            return
        key = (cluster, obj["metadata"].get("namespace", "default"), obj["metadata"]["name"])
        if event_type in ("ADDED", "MODIFIED"):
            # A suspended job (Kueue holds it until it is admitted) gets no pod until it is resumed.
            suspended = ((obj.get("spec") or {}).get("runPolicy") or {}).get("suspend") is True
            with self._lock:
                # Kueue may resume a job while its ADDED is still being delivered: its MODIFIED can come first.
                if event_type == "ADDED":
                    self._deleted.discard(key)
                if suspended or key in self._started:
                    return
                self._started.add(key)
            threading.Thread(target=self._run, args=(key,), daemon=True, name=f"job-{key[2]}").start()
        elif event_type == "DELETED":
            with self._lock:
                self._deleted.add(key)
                self._started.discard(key)
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
                self._pods.append_log(cluster, namespace, pod, f"step {line}/{LOG_LINES} loss={2.0 / line:.4f}")
            time.sleep(self.seconds_per_line)
        for pod in pods:
            self._pods.set_phase(store, namespace, pod, "Succeeded")
        self._set_status(store, namespace, name, "Completed", restarts, full_restarts)
        if (job["spec"].get("runPolicy") or {}).get("cleanPodPolicy", "All") != "None":
            self._delete_pods(store, namespace, name)

    def _forget_logs(self, key: tuple[str, str, str]) -> None:
        cluster, namespace, name = key
        self._pods.forget_logs(cluster, namespace, f"{name}-")

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
        name = job["metadata"]["name"]
        replica = job["spec"]["replicaSpecs"][0]
        template = replica.get("template") or {}
        requests = [
            PodRequest(f"{name}-{replica['name']}-{index}", template, {"job-name": name})
            for index in range(int(replica.get("replicas") or 0))
        ]
        return self._pods.place(store, job, requests)

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
            self._pods.append_log(cluster, namespace, pod_name, "process killed; restarted in place")
        self._set_status(store, namespace, name, "Running", restarts, full_restarts)

    def _delete_pods(self, store: ClusterStore, namespace: str, name: str) -> None:
        self._pods.delete(store, namespace, f"job-name={name}")

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
        stamp = now()
        conditions = [{**c, "status": "False"} for c in status.get("conditions") or [] if c["type"] != condition]
        conditions.append(
            {"type": condition, "status": "True", "reason": reason or condition, "lastTransitionTime": stamp}
        )
        status.update(
            conditions=conditions,
            restartCount=restarts,
            restartStatus={"fullJobRestartCount": full_restarts},
            startTime=status.get("startTime") or stamp,
        )
        if condition in ("Completed", "Failed"):
            status["completionTime"] = stamp
        store.put(job)
        reason = reason or condition
        warning = reason in ("Failed", "RestartsExhausted", "Restarting")
        self._pods.event(store, job, reason, f"Job {name} is {condition}", warning)
