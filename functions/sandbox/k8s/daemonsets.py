"""The DaemonSet controller, and the kubelet's image pull for the pods it places.

What it does, as Kubernetes does it (kubernetes.io/docs/concepts/workloads/controllers/daemonset/):
- a DaemonSet gets one pod on each node its template selects (`nodeSelector` and required node affinity) whose
  NoSchedule and NoExecute taints the pod tolerates, with the tolerations the controller adds to every DaemonSet
  pod; a pod stays while its node still matches and tolerates its NoExecute taints, and goes with its node;
- a pod whose image the node cannot pull (`sandbox.aws.ecr`: an AWS registry that does not serve the image's
  Region) stays Pending with its container waiting in `ImagePullBackOff` and the kubelet's message, plus a Warning
  event saying why the pull failed; every other pod is Running and Ready;
- a changed template replaces every pod (a rolling update done at once); a deleted DaemonSet takes its pods;
- the DaemonSet's status counts its pods (desired, current, updated, ready, available, unavailable).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from typing import Any

from sandbox.aws.ecr import pull_error
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.pods import SimulatedPods, now

JsonObject = dict[str, Any]
APPS = ("apps", "v1", "daemonsets")
REVISION_LABEL = "controller-revision-hash"
# The tolerations the DaemonSet controller adds to every pod it creates (key, effect).
DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ("node.kubernetes.io/network-unavailable", "NoSchedule"),
)
_LOG = logging.getLogger(__name__)


class DaemonSetController:
    def __init__(self, emulator: KubernetesEmulator) -> None:
        self._emulator = emulator
        # Re-entrant: a pod or status write inside the lock notifies this controller again on the same thread.
        self._lock = threading.RLock()

    def install(self) -> None:
        self._emulator.add_listener(self._on_event)

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        kind = obj.get("kind")
        if kind not in ("DaemonSet", "Node"):
            return
        store = self._emulator.store(cluster)
        try:
            with self._lock:
                if kind == "Node":
                    for daemon_set in store.list(*APPS):
                        self._reconcile(store, daemon_set, only_node=obj["metadata"]["name"])
                elif event_type == "DELETED":
                    for pod in _pods(store, obj):
                        store.delete("", "v1", "pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
                else:
                    live = store.get(*APPS, obj["metadata"].get("namespace"), obj["metadata"]["name"])
                    if live is not None:
                        self._reconcile(store, live)
        except LookupError:
            pass  # the cluster went away

    def _reconcile(self, store: ClusterStore, daemon_set: JsonObject, only_node: str | None = None) -> None:
        """Bring the DaemonSet's pods (on one node, or on all) to its template, then its status to its pods."""
        template = (daemon_set.get("spec") or {}).get("template") or {}
        spec = template.get("spec") or {}
        revision = _revision(template)
        nodes = {node["metadata"]["name"]: node for node in store.list("", "v1", "nodes")}
        pods = {str((pod.get("spec") or {}).get("nodeName") or ""): pod for pod in _pods(store, daemon_set)}
        for name in [only_node] if only_node else sorted(set(nodes) | set(pods)):
            node, pod = nodes.get(name), pods.get(name)
            current = pod is not None and (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) == revision
            if pod is not None and not (current and node is not None and _may_run(spec, node, new=False)):
                store.delete("", "v1", "pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
                pod = None
            if pod is None and node is not None and _may_run(spec, node, new=True):
                self._create_pod(store, daemon_set, template, revision, name)
        self._update_status(store, daemon_set, revision, nodes)

    @staticmethod
    def _create_pod(
        store: ClusterStore, daemon_set: JsonObject, template: JsonObject, revision: str, node: str
    ) -> None:
        metadata = daemon_set["metadata"]
        spec = template.get("spec") or {}
        containers = spec.get("containers") or []
        errors = {c.get("name", ""): error for c in containers if (error := pull_error(c.get("image", "")))}
        reference = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": metadata["name"], "uid": metadata.get("uid")}
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"{metadata['name']}-{hashlib.sha1(node.encode()).hexdigest()[:5]}",
                "namespace": metadata["namespace"],
                "labels": {**((template.get("metadata") or {}).get("labels") or {}), REVISION_LABEL: revision},
                "ownerReferences": [{**reference, "controller": True}],
            },
            "spec": {**spec, "nodeName": node},
            "status": _status(containers, errors),
        }
        store.put(pod)
        for container in containers:
            if container.get("name", "") in errors:
                message = f'Failed to pull image "{container.get("image")}": {errors[container.get("name", "")]}'
                SimulatedPods.event(store, pod, "Failed", message, warning=True)

    @staticmethod
    def _update_status(
        store: ClusterStore, daemon_set: JsonObject, revision: str, nodes: dict[str, JsonObject]
    ) -> None:
        pods = [pod for pod in _pods(store, daemon_set) if (pod.get("spec") or {}).get("nodeName") in nodes]
        ready = sum(1 for pod in pods if _ready(pod))
        updated = sum(1 for pod in pods if (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) == revision)
        status = {
            "currentNumberScheduled": len(pods),
            "desiredNumberScheduled": len(pods),
            "numberMisscheduled": 0,
            "numberReady": ready,
            "numberAvailable": ready,
            "numberUnavailable": len(pods) - ready,
            "updatedNumberScheduled": updated,
            "observedGeneration": daemon_set["metadata"].get("generation", 1),
        }
        live = store.get(*APPS, daemon_set["metadata"]["namespace"], daemon_set["metadata"]["name"])
        if live is not None and live.get("status") != status:
            store.put({**live, "status": status})


def _pods(store: ClusterStore, daemon_set: JsonObject) -> list[JsonObject]:
    """The pods the DaemonSet owns (by owner reference: its selector may match pods of others)."""
    metadata = daemon_set["metadata"]
    labels = ((daemon_set.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    selector = ",".join(f"{key}={value}" for key, value in labels.items())
    return [
        pod
        for pod in store.list("", "v1", "pods", metadata.get("namespace"), selector)
        if any(
            owner.get("kind") == "DaemonSet" and owner.get("name") == metadata["name"]
            for owner in pod["metadata"].get("ownerReferences") or []
        )
    ]


def _revision(template: JsonObject) -> str:
    return hashlib.sha1(json.dumps(template, sort_keys=True).encode()).hexdigest()[:10]


def _status(containers: list[JsonObject], errors: dict[str, str]) -> JsonObject:
    """A Running, Ready pod; or Pending with the containers that cannot pull their image in ImagePullBackOff."""
    stamp = now()
    statuses = []
    for container in containers:
        name, image = container.get("name", ""), container.get("image", "")
        if name in errors:
            waiting = {"reason": "ImagePullBackOff", "message": f'Back-off pulling image "{image}"'}
            statuses.append(
                {"name": name, "image": image, "imageID": "", "ready": False, "restartCount": 0, "started": False}
                | {"state": {"waiting": waiting}}
            )
        else:
            statuses.append(
                {"name": name, "image": image, "ready": not errors, "restartCount": 0, "started": True}
                | {"state": {"running": {"startedAt": stamp}}}
            )
    unready = [status["name"] for status in statuses if not status["ready"]]
    ready = {"type": "Ready", "status": "True"}
    if unready:
        message = f"containers with unready status: [{' '.join(unready)}]"
        ready = {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "message": message}
    return {
        "phase": "Pending" if errors else "Running",
        "startTime": stamp,
        "conditions": [{"type": "PodScheduled", "status": "True"}, ready],
        "containerStatuses": statuses,
    }


def _ready(pod: JsonObject) -> bool:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _may_run(spec: JsonObject, node: JsonObject, new: bool) -> bool:
    """Whether the template selects the node and tolerates its taints: NoExecute always, NoSchedule for a new pod."""
    labels = node["metadata"].get("labels") or {}
    if any(labels.get(key) != value for key, value in (spec.get("nodeSelector") or {}).items()):
        return False
    required = (
        ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        or {}
    ).get("nodeSelectorTerms")
    if required and not any(_term_matches(term, labels) for term in required):
        return False
    effects = {"NoExecute", "NoSchedule"} if new else {"NoExecute"}
    tolerations = [*(spec.get("tolerations") or []), *({"key": k, "effect": e} for k, e in DAEMON_TOLERATIONS)]
    return all(
        any(_tolerates(toleration, taint) for toleration in tolerations)
        for taint in (node.get("spec") or {}).get("taints") or []
        if taint.get("effect") in effects
    )


def _term_matches(term: JsonObject, labels: dict[str, str]) -> bool:
    for requirement in term.get("matchExpressions") or []:
        key, operator, values = requirement.get("key"), requirement.get("operator"), requirement.get("values") or []
        if not {
            "In": key in labels and labels[key] in values,
            "NotIn": key not in labels or labels[key] not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }.get(operator, False):
            return False
    return True


def _tolerates(toleration: JsonObject, taint: JsonObject) -> bool:
    if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
        return False
    if not toleration.get("key"):
        return toleration.get("operator") == "Exists"
    if toleration["key"] != taint.get("key"):
        return False
    return toleration.get("operator") == "Exists" or toleration.get("value", "") == taint.get("value", "")
