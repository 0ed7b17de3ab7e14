"""Kueue's `deployment` integration, as the simulated Kueue (`kueue.py`) runs it for a team's model servers: each pod
of a queued Deployment is a plain Pod that waits, gated, for its own Workload to be admitted.

What HyperPod and Kueue do, with sources:
- [src: docs.aws.amazon.com sagemaker-hyperpod-model-deployment-task-gov] task governance admits inference *pods*
  through the team's ClusterQueue, with the same priority classes and quotas as jobs. [src: aws/sagemaker-hyperpod-cli
  issue #307, open] the CLI's inference commands set no queue or priority label (its PyTorch job template puts them on
  the job and its pod template). [inferred] the add-on's Kueue enables the `deployment` integration (Kueue's way to
  queue a Deployment, kubernetes-sigs/kueue issue #2717); a Deployment made by HyperPod's inference operator
  (InferenceEndpointConfig / JumpStartModel) is queued the same way when its labels reach the Deployment. The control
  plane's model servers are plain Deployments labelled on the object and the pod template.
- [src: kubernetes-sigs/kueue site/content/en/docs/tasks/run/deployment.md] the queue is the Deployment's
  `kueue.x-k8s.io/queue-name` label; every pod is an independent plain Pod with its own Workload, so a Deployment may
  run only some replicas when quota is short; scale-in deletes pods and frees their quota.
- [src: kueue pkg/controller/jobs/deployment/deployment_webhook.go] the Deployment webhook writes on the pod template
  the annotation `kueue.x-k8s.io/pod-suspending-parent: deployment`, the label `kueue.x-k8s.io/managed: "true"`, and
  the queue-name and priority-class labels.
- [src: kueue pkg/controller/jobs/pod/pod_webhook.go, pod/constants] the pod webhook gives such a pod the scheduling
  gate `kueue.x-k8s.io/admission` (no finalizer: its parent suspends it); the pod stays Pending, unscheduled
  (the scheduler's PodScheduled False, reason SchedulingGated) until the gate is removed.
- [src: kueue pkg/controller/jobs/pod/pod_controller.go `constructPodSet`, `GetWorkloadNameForPod`,
  pkg/controller/jobframework/workload_names.go] the Workload is `pod-<pod>-<5 hex of sha1("Pod\\n\\n<pod>\\n<uid>")>`
  in the pod's namespace, owned (controller) by the Pod, with one pod set `main` of count 1 and the pod's spec; it
  waits with the same QuotaReserved condition and messages as a job's.
- [src: pod_controller.go `Run`, jobframework/reconciler.go] on admission the gate is removed and the pod gets the
  event Normal/Started "Admitted by clusterQueue <queue>"; a deleted pod's Workload goes with it (owner reference).
Not simulated: pod groups, the pod finalizer, the `kueue.x-k8s.io/cluster-queue-name` label on admitted pods, a
finished pod's Workload (a model server's pods run until deleted).
"""

from __future__ import annotations

import hashlib
from typing import Any

from sandbox.k8s.kinds import Kind
from sandbox.k8s.store import ObjectStore

JsonObject = dict[str, Any]
GROUP, VERSION = "kueue.x-k8s.io", "v1beta1"
QUEUE_LABEL = f"{GROUP}/queue-name"
PRIORITY_LABEL = f"{GROUP}/priority-class"
MANAGED_LABEL = f"{GROUP}/managed"
SUSPENDING_PARENT = f"{GROUP}/pod-suspending-parent"
GATE = f"{GROUP}/admission"
POD_SET = "main"
_MAX_NAME = 253 - 1 - 5


def suspend_queued_deployment(store: ObjectStore, kind: Kind, obj: JsonObject) -> None:
    """Kueue's Deployment webhook: a queued Deployment's pods are to be created suspended, labelled with its queue."""
    if (kind.group, kind.kind) != ("apps", "Deployment") or store.kind(GROUP, VERSION, "workloads") is None:
        return
    labels = (obj.get("metadata") or {}).get("labels") or {}
    if QUEUE_LABEL not in labels:
        return
    template = obj.setdefault("spec", {}).setdefault("template", {}).setdefault("metadata", {})
    template.setdefault("annotations", {})[SUSPENDING_PARENT] = "deployment"
    template_labels = template.setdefault("labels", {})
    template_labels[MANAGED_LABEL] = "true"
    template_labels[QUEUE_LABEL] = labels[QUEUE_LABEL]
    if PRIORITY_LABEL in labels:
        template_labels[PRIORITY_LABEL] = labels[PRIORITY_LABEL]


def gate_suspended_pod(store: ObjectStore, kind: Kind, obj: JsonObject) -> None:
    """Kueue's pod webhook: a pod its parent suspends is created with the admission scheduling gate."""
    if (kind.group, kind.kind) != ("", "Pod") or store.kind(GROUP, VERSION, "workloads") is None:
        return
    if SUSPENDING_PARENT in ((obj.get("metadata") or {}).get("annotations") or {}):
        gates = obj.setdefault("spec", {}).setdefault("schedulingGates", [])
        if not any(gate.get("name") == GATE for gate in gates):
            gates.append({"name": GATE})


def queued(pod: JsonObject) -> bool:
    """Whether Kueue manages the pod (it carries Kueue's managed and queue-name labels)."""
    labels = pod["metadata"].get("labels") or {}
    return labels.get(MANAGED_LABEL) == "true" and QUEUE_LABEL in labels


def gated(pod: JsonObject) -> bool:
    return any(gate.get("name") == GATE for gate in (pod.get("spec") or {}).get("schedulingGates") or [])


def workload_name(pod: JsonObject) -> str:
    meta = pod["metadata"]
    digest = hashlib.sha1(f"Pod\n\n{meta['name']}\n{meta['uid']}".encode(), usedforsecurity=False).hexdigest()[:5]
    return f"pod-{meta['name']}"[:_MAX_NAME] + f"-{digest}"


def pod_sets(pod: JsonObject) -> list[JsonObject]:
    return [{"name": POD_SET, "count": 1, "template": {"spec": pod.get("spec") or {}}}]


def ungate(pod: JsonObject) -> bool:
    """Remove Kueue's gate from the pod; whether it had it."""
    spec = pod.get("spec") or {}
    kept = [gate for gate in spec.get("schedulingGates") or [] if gate.get("name") != GATE]
    if len(kept) == len(spec.get("schedulingGates") or []):
        return False
    if kept:
        spec["schedulingGates"] = kept
    else:
        spec.pop("schedulingGates", None)
    return True
