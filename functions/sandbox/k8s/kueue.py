"""A simulated Kueue (kueue.x-k8s.io/v1beta1), as HyperPod's task governance add-on runs it: its kinds, its job
webhook, and its controller's admission of HyperPodPyTorchJobs.

- `serve`: Kueue's kinds (ClusterQueue, LocalQueue, ResourceFlavor, Workload, WorkloadPriorityClass), with open
  schemas (the sandbox does not carry Kueue's CRD files). Kueue is present in a cluster while they are served; the
  HyperPod simulation serves them with the first task-governance object (`sandbox.aws.hyperpod.queues`).
- The webhook: a HyperPodPyTorchJob created with the `kueue.x-k8s.io/queue-name` label is suspended
  (`spec.runPolicy.suspend: true`), so the training operator creates no pod until Kueue admits it.
- A queued Deployment's pods: Kueue's `deployment` integration, each pod gated with its own Workload (`kueue_pods`).
- The controller: each such job gets a `Workload` (named `hyperpodpytorchjob-<job>-<hash>`, labelled with the job's
  uid) in the job's namespace. Pending workloads are admitted by priority (the WorkloadPriorityClass's value), then
  creation time, when their ClusterQueue has room (`kueue_quota`); an admitted job is unsuspended. A pending one keeps
  `QuotaReserved: False` with Kueue's message (reason Pending; Inadmissible when its LocalQueue or ClusterQueue is
  missing, the queue is held, or the queue's namespaceSelector does not select the job's namespace). A finished or
  deleted job frees its quota and the next is admitted.
- A priority-class label naming no WorkloadPriorityClass: Kueue's job reconciler cannot build the Workload (it
  resolves the class in `prepareWorkload` and returns the API's NotFound, which it retries; no event, no condition),
  so the job stays suspended with no Workload [src: kubernetes-sigs/kueue pkg/controller/jobframework/reconciler.go,
  `handleJobWithNoWorkload`]. The control plane's submit is to refuse such a job before it is created.
Not simulated: preemption, fair-sharing order, admission checks, other job kinds, pod groups.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from sandbox.k8s import kueue_pods
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator
from sandbox.k8s.kinds import Kind
from sandbox.k8s.kueue_pods import GROUP, PRIORITY_LABEL, QUEUE_LABEL, VERSION
from sandbox.k8s.kueue_quota import PodSet, Queue, assign, formatted, quantity
from sandbox.k8s.pods import now
from sandbox.k8s.store import ObjectStore

JsonObject = dict[str, Any]
API_VERSION = f"{GROUP}/{VERSION}"
JOB_UID_LABEL = f"{GROUP}/job-uid"
KINDS = (  # (plural, kind, namespaced)
    ("clusterqueues", "ClusterQueue", False),
    ("localqueues", "LocalQueue", True),
    ("resourceflavors", "ResourceFlavor", False),
    ("workloads", "Workload", True),
    ("workloadpriorityclasses", "WorkloadPriorityClass", False),
)
JOB_GROUP, JOB_VERSION, JOB_PLURAL, JOB_KIND = (
    "sagemaker.amazonaws.com",
    "v1",
    "hyperpodpytorchjobs",
    "HyperPodPyTorchJob",
)
_FINISHED = {"Completed": "Succeeded", "Failed": "Failed"}


def serve(store: ClusterStore) -> None:
    """Serve Kueue's kinds in the cluster (unless they are served already)."""
    for plural, kind, namespaced in KINDS:
        name = f"{plural}.{GROUP}"
        if store.get("apiextensions.k8s.io", "v1", "customresourcedefinitions", None, name) is not None:
            continue
        version = {
            "name": VERSION,
            "served": True,
            "storage": True,
            "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            "subresources": {"status": {}},
        }
        names = {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"}
        scope = "Namespaced" if namespaced else "Cluster"
        spec = {"group": GROUP, "names": names, "scope": scope, "versions": [version]}
        crd = {"metadata": {"name": name}, "spec": spec}
        store.put({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", **crd})


def workload_name(job: JsonObject) -> str:
    """Kueue's name for a job's Workload: `<kind>-<job name>-<5 hex of a hash of the job's uid>`."""
    digest = hashlib.sha256(job["metadata"]["uid"].encode()).hexdigest()[:5]
    return f"{JOB_KIND.lower()}-{job['metadata']['name']}"[:57] + f"-{digest}"


class KueueSimulation:
    """Kueue's webhook and controller over every emulated cluster."""

    def __init__(self, emulator: KubernetesEmulator) -> None:
        self._emulator = emulator
        self._lock = threading.RLock()
        self._local = threading.local()

    def install(self) -> None:
        self._emulator.add_webhook(_suspend_queued_job)
        self._emulator.add_webhook(kueue_pods.suspend_queued_deployment)
        self._emulator.add_webhook(kueue_pods.gate_suspended_pod)
        self._emulator.add_listener(self._on_event)

    def _on_event(self, cluster: str, event_type: str, obj: JsonObject) -> None:
        if getattr(self._local, "reconciling", False):
            return
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if api_version == f"{JOB_GROUP}/{JOB_VERSION}" and kind == JOB_KIND:
            if QUEUE_LABEL not in (obj["metadata"].get("labels") or {}):
                return
            store = self._emulator.store(cluster)
            if not _served(store):
                return
            if event_type == "ADDED":
                self._create_workload(store, obj, workload_name(obj), _job_pod_sets(obj))
            elif event_type == "DELETED":
                store.delete(GROUP, VERSION, "workloads", obj["metadata"]["namespace"], workload_name(obj))
            elif not self._finish_workload(store, obj):
                return
        elif api_version == "v1" and kind == "Pod":
            store = self._emulator.store(cluster)
            if not kueue_pods.queued(obj) or event_type == "MODIFIED" or not _served(store):
                return
            name = kueue_pods.workload_name(obj)
            if event_type == "DELETED":
                store.delete(GROUP, VERSION, "workloads", obj["metadata"]["namespace"], name)
            elif kueue_pods.gated(obj):
                self._create_workload(store, obj, name, kueue_pods.pod_sets(obj))
        elif api_version != API_VERSION or kind == "Workload":
            return
        self.reconcile(cluster)

    def _create_workload(self, store: ClusterStore, owner: JsonObject, name: str, pod_sets: list[JsonObject]) -> None:
        """The Workload of a queued job or pod, owned by it (none while its priority class is missing)."""
        meta = owner["metadata"]
        labels = meta.get("labels") or {}
        priority_class = labels.get(PRIORITY_LABEL)
        priority = 0
        if priority_class is not None:
            found = store.get(GROUP, VERSION, "workloadpriorityclasses", None, priority_class)
            if found is None:
                return  # Kueue retries; the job stays suspended (the pod gated) with no Workload
            priority = int(found.get("value", 0))
        reference = {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": meta["name"], "uid": meta["uid"]}
        spec: JsonObject = {"queueName": labels[QUEUE_LABEL], "podSets": pod_sets, "priority": priority}
        if priority_class is not None:
            spec.update(priorityClassName=priority_class, priorityClassSource=f"{GROUP}/workloadpriorityclass")
        store.put(
            {
                "apiVersion": API_VERSION,
                "kind": "Workload",
                "metadata": {
                    "name": name,
                    "namespace": meta["namespace"],
                    "labels": {JOB_UID_LABEL: meta["uid"]},
                    "ownerReferences": [{**reference, "controller": True, "blockOwnerDeletion": True}],
                },
                "spec": spec,
            }
        )
        _event(store, owner, "Normal", "CreatedWorkload", f"Created Workload: {meta['namespace']}/{name}")

    def _finish_workload(self, store: ClusterStore, job: JsonObject) -> bool:
        """Mark the Workload Finished when its job ended; whether it changed."""
        held = [c for c in (job.get("status") or {}).get("conditions") or [] if c.get("status") == "True"]
        ended = next((_FINISHED[c["type"]] for c in held if c["type"] in _FINISHED), None)
        workload = store.get(GROUP, VERSION, "workloads", job["metadata"]["namespace"], workload_name(job))
        if ended is None or workload is None or _condition(workload, "Finished"):
            return False
        message = "Job finished successfully" if ended == "Succeeded" else "Job failed"
        _set_condition(workload, "Finished", "True", ended, message)
        store.put(workload)
        return True

    # --- admission ---------------------------------------------------------------------------

    def reconcile(self, cluster: str) -> None:
        """Admit what fits, in priority then FIFO order, and write every queue's status."""
        with self._lock:
            self._local.reconciling = True
            try:
                self._reconcile(self._emulator.store(cluster))
            finally:
                self._local.reconciling = False

    def _reconcile(self, store: ClusterStore) -> None:
        if not _served(store):
            return
        queues = {obj["metadata"]["name"]: (obj, Queue.of(obj)) for obj in store.list(GROUP, VERSION, "clusterqueues")}
        members = [queue for _, queue in queues.values()]
        local = {
            (obj["metadata"]["namespace"], obj["metadata"]["name"]): obj
            for obj in store.list(GROUP, VERSION, "localqueues")
        }
        labels = {
            obj["metadata"]["name"]: (obj.get("spec") or {}).get("nodeLabels") or {}
            for obj in store.list(GROUP, VERSION, "resourceflavors")
        }
        live = [w for w in store.list(GROUP, VERSION, "workloads") if not _condition(w, "Finished")]
        counts: dict[tuple[str, str], dict[str, int]] = {}
        waiting = []
        for workload in live:
            namespace, queue_name = workload["metadata"]["namespace"], workload["spec"]["queueName"]
            local_queue = local.get((namespace, queue_name))
            cluster_queue = (local_queue or {}).get("spec", {}).get("clusterQueue")
            if local_queue is None or cluster_queue not in queues:
                missing = f"LocalQueue {queue_name}" if local_queue is None else f"ClusterQueue {cluster_queue}"
                _pend(store, workload, "Inadmissible", f"{missing} doesn't exist")
                continue
            tally = counts.setdefault((namespace, queue_name), {"admitted": 0, "pending": 0})
            admission = (workload.get("status") or {}).get("admission")
            if admission:
                _use(queues[cluster_queue][1], admission)
                tally["admitted"] += 1
            elif not _selects(store, queues[cluster_queue][0], namespace):
                _pend(store, workload, "Inadmissible", "Workload namespace doesn't match ClusterQueue selector")
                tally["pending"] += 1
            else:
                waiting.append((workload, cluster_queue, tally))
        waiting.sort(
            key=lambda item: (-int(item[0]["spec"].get("priority", 0)), item[0]["metadata"]["creationTimestamp"])
        )
        for workload, cluster_queue, tally in waiting:
            queue = queues[cluster_queue][1]
            pod_sets = [PodSet.of(pod_set) for pod_set in workload["spec"]["podSets"]]
            flavors, message = assign(queue, members, pod_sets, labels)
            if flavors is None:
                _pend(store, workload, "Inadmissible" if queue.held else "Pending", message)
                tally["pending"] += 1
                continue
            admission = _admission(cluster_queue, pod_sets, flavors)
            _use(queue, admission)
            tally["admitted"] += 1
            _admit(store, workload, admission, message)
        for obj, queue in queues.values():
            _queue_status(store, obj, queue, counts, local)


def _job_pod_sets(job: JsonObject) -> list[JsonObject]:
    return [
        {"name": replica["name"], "count": int(replica.get("replicas") or 0), "template": replica.get("template")}
        for replica in job["spec"].get("replicaSpecs") or []
    ]


def _suspend_queued_job(store: ObjectStore, kind: Kind, obj: JsonObject) -> None:
    """Kueue's job webhook: a queued job is created suspended, for the controller to release on admission."""
    if (kind.group, kind.kind) != (JOB_GROUP, JOB_KIND) or store.kind(GROUP, VERSION, "workloads") is None:
        return
    if QUEUE_LABEL in ((obj.get("metadata") or {}).get("labels") or {}):
        obj.setdefault("spec", {}).setdefault("runPolicy", {})["suspend"] = True


def _selects(store: ClusterStore, cluster_queue: JsonObject, namespace: str) -> bool:
    """Whether the ClusterQueue's namespaceSelector (its matchLabels) selects the namespace; every namespace carries
    `kubernetes.io/metadata.name` (the API server sets it)."""
    selector = ((cluster_queue.get("spec") or {}).get("namespaceSelector") or {}).get("matchLabels") or {}
    found = store.get("", "v1", "namespaces", None, namespace) or {"metadata": {}}
    labels = {**(found["metadata"].get("labels") or {}), "kubernetes.io/metadata.name": namespace}
    return all(labels.get(key) == value for key, value in selector.items())


def _served(store: ClusterStore) -> bool:
    crd = store.get("apiextensions.k8s.io", "v1", "customresourcedefinitions", None, f"workloads.{GROUP}")
    return crd is not None


def _admission(cluster_queue: str, pod_sets: list[PodSet], flavors: dict[str, str]) -> JsonObject:
    return {
        "clusterQueue": cluster_queue,
        "podSetAssignments": [
            {
                "name": pod_set.name,
                "count": pod_set.count,
                "flavors": {resource: flavors[pod_set.name] for resource in pod_set.total()},
                "resourceUsage": {resource: formatted(resource, n) for resource, n in pod_set.total().items()},
            }
            for pod_set in pod_sets
        ],
    }


def _use(queue: Queue, admission: JsonObject) -> None:
    for assignment in admission.get("podSetAssignments") or []:
        for resource, flavor in (assignment.get("flavors") or {}).items():
            queue.usage[flavor][resource] += quantity(assignment["resourceUsage"][resource])


def _admit(store: ClusterStore, workload: JsonObject, admission: JsonObject, message: str) -> None:
    workload.setdefault("status", {})["admission"] = admission
    _set_condition(workload, "QuotaReserved", "True", "QuotaReserved", message)
    _set_condition(workload, "Admitted", "True", "Admitted", "The workload is admitted")
    store.put(workload)
    owner, namespace = workload["metadata"]["ownerReferences"][0], workload["metadata"]["namespace"]
    if owner["kind"] == "Pod":
        released = store.get("", "v1", "pods", namespace, owner["name"])
        if released is None or not kueue_pods.ungate(released):
            return
    else:
        released = store.get(JOB_GROUP, JOB_VERSION, JOB_PLURAL, namespace, owner["name"])
        if released is None:
            return
        released["spec"].setdefault("runPolicy", {})["suspend"] = False
    store.put(released)
    _event(store, released, "Normal", "Started", f"Admitted by clusterQueue {admission['clusterQueue']}")


def _pend(store: ClusterStore, workload: JsonObject, reason: str, message: str) -> None:
    if _set_condition(workload, "QuotaReserved", "False", reason, message):
        store.put(workload)


def _queue_status(
    store: ClusterStore,
    obj: JsonObject,
    queue: Queue,
    counts: dict[tuple[str, str], dict[str, int]],
    local: dict[tuple[str, str], JsonObject],
) -> None:
    """A ClusterQueue's usage and counts, and those of its LocalQueues."""
    name = obj["metadata"]["name"]
    mine = {
        key: counts.get(key, {"admitted": 0, "pending": 0})
        for key, lq in local.items()
        if (lq.get("spec") or {}).get("clusterQueue") == name
    }
    usage = [
        {
            "name": flavor,
            "resources": [
                {
                    "name": resource,
                    "total": formatted(resource, queue.usage[flavor][resource]),
                    "borrowed": formatted(resource, max(0.0, queue.usage[flavor][resource] - quota.nominal)),
                }
                for resource, quota in resources.items()
            ],
        }
        for flavor, resources in queue.flavors.items()
    ]
    admitted = sum(tally["admitted"] for tally in mine.values())
    pending = sum(tally["pending"] for tally in mine.values())
    status = {
        "flavorsUsage": usage,
        "flavorsReservation": usage,
        "admittedWorkloads": admitted,
        "reservingWorkloads": admitted,
        "pendingWorkloads": pending,
    }
    _write_status(store, obj, status)
    for key, tally in mine.items():
        status = {
            "admittedWorkloads": tally["admitted"],
            "reservingWorkloads": tally["admitted"],
            "pendingWorkloads": tally["pending"],
        }
        _write_status(store, local[key], status)


def _write_status(store: ClusterStore, obj: JsonObject, status: JsonObject) -> None:
    current = obj.get("status") or {}
    if any(current.get(key) != value for key, value in status.items()):
        obj["status"] = {**current, **status}
        store.put(obj)


def _condition(obj: JsonObject, kind: str) -> JsonObject | None:
    found = [c for c in (obj.get("status") or {}).get("conditions") or [] if c["type"] == kind]
    return found[0] if found and found[0]["status"] == "True" else None


def _set_condition(obj: JsonObject, kind: str, status: str, reason: str, message: str) -> bool:
    """Set one condition (its transition time only when its status changes); whether anything changed."""
    conditions = obj.setdefault("status", {}).setdefault("conditions", [])
    current = next((c for c in conditions if c["type"] == kind), None)
    if current is not None and (current["status"], current["reason"], current["message"]) == (status, reason, message):
        return False
    stamp = now() if current is None or current["status"] != status else current["lastTransitionTime"]
    new = {"type": kind, "status": status, "reason": reason, "message": message, "lastTransitionTime": stamp}
    obj["status"]["conditions"] = [c for c in conditions if c["type"] != kind] + [new]
    return True


def _event(store: ClusterStore, involved: JsonObject, kind: str, reason: str, message: str) -> None:
    meta = involved["metadata"]
    digest = hashlib.sha256(f"{meta['uid']}{reason}{message}".encode()).hexdigest()[:10]
    reference = {
        "apiVersion": involved["apiVersion"],
        "kind": involved["kind"],
        "name": meta["name"],
        "namespace": meta["namespace"],
        "uid": meta["uid"],
    }
    store.put(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{meta['name']}.{digest}", "namespace": meta["namespace"]},
            "involvedObject": reference,
            "type": kind,
            "reason": reason,
            "message": message,
            "source": {"component": "kueue-admission"},
            "firstTimestamp": now(),
            "lastTimestamp": now(),
            "count": 1,
        }
    )
