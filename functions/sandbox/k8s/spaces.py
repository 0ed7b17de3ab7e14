"""A simulated HyperPod spaces controller (jupyter-k8s, which the amazon-sagemaker-spaces add-on packages): a Workspace
whose desiredStatus is Running becomes Available after `seconds_to_start`, with the Deployment and Service names the
controller gives them (`workspace-<name>`, `workspace-<name>-service`); one set to Stopped reports Stopped. The CRD
(jupyter-k8s's published schema, so strict writes refuse what it does not declare) is served in every cluster as
soon as it is active; the control plane checks the add-on itself before it creates a space.
"""

from __future__ import annotations

import logging
import threading
import time

from sandbox.k8s.crds import published_crd
from sandbox.k8s.emulator import KubernetesEmulator
from sandbox.k8s.pods import JsonObject, now

GROUP, VERSION, PLURAL, KIND = "workspace.jupyter.org", "v1alpha1", "workspaces", "Workspace"
API_VERSION = f"{GROUP}/{VERSION}"
CONDITIONS = ("Available", "Progressing", "Degraded", "Stopped")
_LOG = logging.getLogger(__name__)


class SpacesSimulation:
    def __init__(self, emulator: KubernetesEmulator, seconds_to_start: float) -> None:
        self._emulator = emulator
        self.seconds_to_start = seconds_to_start

    def install(self) -> None:
        self._emulator.add_listener(self._on_event)

    def serve(self, cluster: str) -> None:
        self._emulator.store(cluster).put(published_crd(f"{PLURAL}.{GROUP}"))

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        if obj.get("apiVersion") != API_VERSION or obj.get("kind") != KIND or event_type == "DELETED":
            return
        if _reported(obj) == (obj.get("spec") or {}).get("desiredStatus", "Running"):
            return
        key = (cluster, obj["metadata"].get("namespace", "default"), obj["metadata"]["name"])
        threading.Thread(target=self._settle, args=(key,), daemon=True, name=f"space-{key[2]}").start()

    def _settle(self, key: tuple[str, str, str]) -> None:
        cluster, namespace, name = key
        time.sleep(self.seconds_to_start)
        try:
            store = self._emulator.store(cluster)
            workspace = store.get(GROUP, VERSION, PLURAL, namespace, name)
            if workspace is not None:
                store.put(_with_status(workspace))
        except LookupError:
            pass  # the cluster went away
        except Exception:  # noqa: BLE001 - a simulator thread must not die silently
            _LOG.exception("spaces simulator failed on %s", key)


def _reported(workspace: JsonObject) -> str | None:
    """The state the status reports (Running or Stopped), None while it reports neither."""
    conditions = {c["type"]: c["status"] for c in (workspace.get("status") or {}).get("conditions") or []}
    if conditions.get("Available") == "True":
        return "Running"
    if conditions.get("Stopped") == "True":
        return "Stopped"
    return None


def _with_status(workspace: JsonObject) -> JsonObject:
    name = workspace["metadata"]["name"]
    running = (workspace.get("spec") or {}).get("desiredStatus", "Running") == "Running"
    true = {"Available"} if running else {"Stopped"}
    stamp = now()
    status: JsonObject = {
        "conditions": [
            {
                "type": kind,
                "status": "True" if kind in true else "False",
                "reason": kind,
                "message": f"Workspace is {kind.lower()}" if kind in true else "",
                "lastTransitionTime": stamp,
            }
            for kind in CONDITIONS
        ]
    }
    if running:
        status.update(deploymentName=f"workspace-{name}", serviceName=f"workspace-{name}-service")
    return {**workspace, "status": status}
