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

A node that joins or changes costs each DaemonSet a look at that node and its one pod, and the status a recount of
that pod alone; a DaemonSet is reconciled whole when its spec changes (its generation), not when its status is
written. So a fleet of thousands of nodes comes up in time linear in its size.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from typing import Any

from sandbox.aws.ecr import pull_error
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.pods import SimulatedPods, now, running_container, waiting_container

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
        # The generation each DaemonSet (cluster, uid) was last reconciled at: a status write leaves it unchanged.
        self._reconciled: dict[tuple[str, str], int] = {}

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
                        if event_type == "DELETED":
                            self._reconcile(store, daemon_set, only_node=obj["metadata"]["name"])
                        else:
                            self._reconcile_node(store, daemon_set, obj["metadata"]["name"])
                elif event_type == "DELETED":
                    self._reconciled.pop((cluster, obj["metadata"].get("uid", "")), None)
                    for pod in _pods(store, obj):
                        store.delete("", "v1", "pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
                else:
                    live = store.get(*APPS, obj["metadata"].get("namespace"), obj["metadata"]["name"])
                    key = (cluster, obj["metadata"].get("uid", ""))
                    if live is not None and self._reconciled.get(key) != live["metadata"].get("generation"):
                        self._reconciled[key] = live["metadata"].get("generation")
                        self._reconcile(store, live)
        except LookupError:
            pass  # the cluster went away

    def _reconcile(self, store: ClusterStore, daemon_set: JsonObject, only_node: str | None = None) -> None:
        """Bring the DaemonSet's pods (on one node, or on all) to its template, then its status to its pods."""
        revision = _revision((daemon_set.get("spec") or {}).get("template") or {})
        nodes = {node["metadata"]["name"]: node for node in store.list("", "v1", "nodes")}
        pods = {str((pod.get("spec") or {}).get("nodeName") or ""): pod for pod in _pods(store, daemon_set)}
        for name in [only_node] if only_node else sorted(set(nodes) | set(pods)):
            self._converge(store, daemon_set, revision, name, nodes.get(name), pods.get(name))
        self._update_status(store, daemon_set, revision, nodes)

    def _converge(
        self,
        store: ClusterStore,
        daemon_set: JsonObject,
        revision: str,
        name: str,
        node: JsonObject | None,
        pod: JsonObject | None,
    ) -> JsonObject | None:
        """The DaemonSet's pod on the node `name` as its template wants it: kept, replaced, deleted or created."""
        template = (daemon_set.get("spec") or {}).get("template") or {}
        spec = template.get("spec") or {}
        current = pod is not None and (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) == revision
        if pod is not None and not (current and node is not None and _may_run(spec, node, new=False)):
            store.delete("", "v1", "pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
            pod = None
        if pod is None and node is not None and _may_run(spec, node, new=True):
            pod = self._create_pod(store, daemon_set, template, revision, name)
        return pod

    def _reconcile_node(self, store: ClusterStore, daemon_set: JsonObject, name: str) -> None:
        """The DaemonSet's pod on one node that joined or changed, and its status recounted for that pod alone."""
        revision = _revision((daemon_set.get("spec") or {}).get("template") or {})
        node = store.get("", "v1", "nodes", None, name)
        before = _own_pod(store, daemon_set, name)
        after = self._converge(store, daemon_set, revision, name, node, before)
        live = store.get(*APPS, daemon_set["metadata"]["namespace"], daemon_set["metadata"]["name"])
        if live is None or not live.get("status"):
            nodes = {node["metadata"]["name"]: node for node in store.list("", "v1", "nodes")}
            self._update_status(store, daemon_set, revision, nodes)
            return
        scheduled, ready, updated = _counts(live["status"])
        # The node existed before unless it just joined; either way a pod before it counted only if it was there.
        for sign, counted in ((-1, before), (1, after if node is not None else None)):
            if counted is not None:
                pod_scheduled, pod_ready, pod_updated = _contribution(counted, revision)
                scheduled, ready, updated = (
                    scheduled + sign * pod_scheduled,
                    ready + sign * pod_ready,
                    updated + sign * pod_updated,
                )
        status = _status_of(scheduled, ready, updated, live["metadata"].get("generation", 1))
        if live.get("status") != status:
            store.put({**live, "status": status})

    @staticmethod
    def _create_pod(
        store: ClusterStore, daemon_set: JsonObject, template: JsonObject, revision: str, node: str
    ) -> JsonObject:
        metadata = daemon_set["metadata"]
        spec = template.get("spec") or {}
        containers = spec.get("containers") or []
        errors = {c.get("name", ""): error for c in containers if (error := pull_error(c.get("image", "")))}
        reference = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": metadata["name"], "uid": metadata.get("uid")}
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": _pod_name(daemon_set, node),
                "namespace": metadata["namespace"],
                "labels": {**((template.get("metadata") or {}).get("labels") or {}), REVISION_LABEL: revision},
                "ownerReferences": [{**reference, "controller": True}],
            },
            "spec": {**spec, "nodeName": node},
            "status": _status(containers, errors),
        }
        created = store.put(pod)
        for container in containers:
            if container.get("name", "") in errors:
                message = f'Failed to pull image "{container.get("image")}": {errors[container.get("name", "")]}'
                SimulatedPods.event(store, pod, "Failed", message, warning=True)
        return created

    @staticmethod
    def _update_status(
        store: ClusterStore, daemon_set: JsonObject, revision: str, nodes: dict[str, JsonObject]
    ) -> None:
        pods = [pod for pod in _pods(store, daemon_set) if (pod.get("spec") or {}).get("nodeName") in nodes]
        contributions = [_contribution(pod, revision) for pod in pods]
        scheduled, ready, updated = (sum(column) for column in zip((0, 0, 0), *contributions, strict=True))
        status = _status_of(scheduled, ready, updated, daemon_set["metadata"].get("generation", 1))
        live = store.get(*APPS, daemon_set["metadata"]["namespace"], daemon_set["metadata"]["name"])
        if live is not None and live.get("status") != status:
            store.put({**live, "status": status})


def _status_of(scheduled: int, ready: int, updated: int, generation: int) -> JsonObject:
    return {
        "currentNumberScheduled": scheduled,
        "desiredNumberScheduled": scheduled,
        "numberMisscheduled": 0,
        "numberReady": ready,
        "numberAvailable": ready,
        "numberUnavailable": scheduled - ready,
        "updatedNumberScheduled": updated,
        "observedGeneration": generation,
    }


def _counts(status: JsonObject) -> tuple[int, int, int]:
    return status["currentNumberScheduled"], status["numberReady"], status["updatedNumberScheduled"]


def _contribution(pod: JsonObject, revision: str) -> tuple[int, int, int]:
    """What one scheduled pod adds to its DaemonSet's counts: itself, whether Ready, whether of the revision."""
    current = (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) == revision
    return 1, int(_ready(pod)), int(current)


def _pod_name(daemon_set: JsonObject, node: str) -> str:
    """Named after its node (Kubernetes draws 5 random characters; 5 hex digits of the node's hash collided once in
    two fleets of a thousand nodes, and two nodes' pods took turns under one name)."""
    return f"{daemon_set['metadata']['name']}-{hashlib.sha1(node.encode()).hexdigest()[:10]}"


def _own_pod(store: ClusterStore, daemon_set: JsonObject, node: str) -> JsonObject | None:
    """The DaemonSet's pod on `node` (the controller names it after the node), if it owns it."""
    metadata = daemon_set["metadata"]
    pod = store.get("", "v1", "pods", metadata["namespace"], _pod_name(daemon_set, node))
    owned = pod is not None and any(
        owner.get("kind") == "DaemonSet" and owner.get("name") == metadata["name"]
        for owner in pod["metadata"].get("ownerReferences") or []
    )
    return pod if owned else None


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
    statuses = [
        waiting_container(container, "ImagePullBackOff", f'Back-off pulling image "{container.get("image", "")}"')
        if container.get("name", "") in errors
        else running_container(container, ready=not errors)
        for container in containers
    ]
    unready = [status["name"] for status in statuses if not status["ready"]]
    ready = {"type": "Ready", "status": "True"}
    if unready:
        message = f"containers with unready status: [{' '.join(unready)}]"
        ready = {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "message": message}
    return {
        "phase": "Pending" if errors else "Running",
        "startTime": now(),
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
