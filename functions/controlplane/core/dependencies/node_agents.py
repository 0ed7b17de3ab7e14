"""Whether the HyperPod dependency DaemonSets stage 3 applied (health-monitoring agent, device plugins) run on the
HyperPod nodes that joined: each has a Ready pod on every Ready node it selects. Checked once nodes join (stage 4).

A pod that cannot pull its image fails the check at once, naming the pod, the image and the kubelet's reason: an
agent that never starts leaves node faults unreported (no automatic recovery) and a device plugin that never starts
leaves GPUs, Neuron devices or EFA interfaces unadvertised, and waiting would only delay that news. Which nodes a
DaemonSet selects is read from the applied manifests (their node selector, required node affinity and tolerations),
as the DaemonSet controller decides it; a node that is not Ready is not waited for here, nor a DaemonSet the cluster
does not have (an imported cluster whose dependencies were adopted runs the chart's own, under other names).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controlplane.core import deadlines
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.kubernetes import DaemonPod, KubernetesGateway, KubernetesNode, NodeTaint
from controlplane.models.errors import DependencyFailedError, ResourceNotReadyError
from controlplane.models.workflow import PollState, WorkflowState

HYPERPOD_NODES = {"sagemaker.amazonaws.com/compute-type": "hyperpod"}
PULL_FAILURES = frozenset({"ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull"})
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
MAX_NAMED = 5


class NodeAgentCheck:
    def __init__(
        self,
        eks: EksGateway,
        kubernetes: KubernetesGateway,
        dependency_objects: Callable[[str], list[dict[str, Any]]],
        poll: Poller,
    ) -> None:
        self._eks = eks
        self._kubernetes = kubernetes
        self._dependency_objects = dependency_objects
        self._poll = poll

    def check_node_agents(self, ctx: WorkflowState) -> PollState:
        cluster = self._eks.find_cluster(ctx.eksClusterName)
        if cluster is None or cluster.status != "ACTIVE":
            raise ResourceNotReadyError(f"EKS cluster {ctx.eksClusterName} is not ACTIVE.")
        nodes = [node for node in self._kubernetes.nodes(cluster, ctx.region, HYPERPOD_NODES) if node.ready]
        missing: list[str] = []
        daemon_sets = [obj for obj in self._dependency_objects(ctx.region) if obj["kind"] == "DaemonSet"]
        present = set(self._kubernetes.present(cluster, ctx.region, daemon_sets))
        for daemon_set in daemon_sets:
            namespace, name = daemon_set["metadata"]["namespace"], daemon_set["metadata"]["name"]
            if f"DaemonSet/{namespace}/{name}" not in present:
                continue
            labels = daemon_set["spec"]["selector"]["matchLabels"]
            pods = self._kubernetes.daemon_pods(cluster, ctx.region, namespace, labels)
            _refuse_pull_failures(ctx, namespace, pods)
            ready_on = {pod.node for pod in pods if pod.ready}
            pod_spec = daemon_set["spec"]["template"]["spec"]
            missing += [
                f"{name} on {node.name}" for node in nodes if runs_on(pod_spec, node) and node.name not in ready_on
            ]
        wait = Wait(
            f"the HyperPod agents and device plugins of {ctx.eksClusterName} to be Ready on its nodes",
            deadlines.NODE_AGENTS_READY,
        )
        named = ", ".join(missing[:MAX_NAMED]) + (
            f" and {len(missing) - MAX_NAMED} more" if missing[MAX_NAMED:] else ""
        )
        status = f"waiting for {named}" if missing else f"Ready on {len(nodes)} HyperPod node(s)"
        return self._poll.poll(ctx, wait, done=not missing, status=status)


def _refuse_pull_failures(ctx: WorkflowState, namespace: str, pods: list[DaemonPod]) -> None:
    for pod in pods:
        if pod.waiting_reason in PULL_FAILURES:
            raise DependencyFailedError(
                f"Pod {namespace}/{pod.name} on node {pod.node} cannot pull image {pod.image}: {pod.waiting_reason}"
                f" ({pod.waiting_message or 'no message'}). The image's registry must serve {ctx.region}, and the "
                "nodes need ECR pull permissions (the execution role) and egress (the NAT gateway). Fix the cause, "
                f"then POST /operations/{ctx.operationId}/resume: the kubelet keeps retrying the pull.",
                {"pod": f"{namespace}/{pod.name}", "image": pod.image, "reason": pod.waiting_reason},
            )


def runs_on(pod_spec: dict[str, Any], node: KubernetesNode) -> bool:
    """Whether a DaemonSet with this pod template places a pod on the node: its node selector and required node
    affinity match the node's labels, and its tolerations (with the controller's own) tolerate the node's
    NoSchedule and NoExecute taints."""
    labels = node.labels
    if any(labels.get(key) != value for key, value in (pod_spec.get("nodeSelector") or {}).items()):
        return False
    affinity = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = affinity.get("nodeSelectorTerms") or []
    if terms and not any(_term_matches(term, labels) for term in terms):
        return False
    tolerations = [*(pod_spec.get("tolerations") or []), *({"key": k, "effect": e} for k, e in DAEMON_TOLERATIONS)]
    return all(
        any(_tolerates(toleration, taint) for toleration in tolerations)
        for taint in node.taints
        if taint.effect in ("NoSchedule", "NoExecute")
    )


def _term_matches(term: dict[str, Any], labels: dict[str, str]) -> bool:
    for requirement in term.get("matchExpressions") or []:
        key, values = requirement["key"], requirement.get("values") or []
        matches = {
            "In": key in labels and labels[key] in values,
            "NotIn": key not in labels or labels[key] not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }
        if not matches.get(requirement["operator"], False):
            return False
    return True


def _tolerates(toleration: dict[str, Any], taint: NodeTaint) -> bool:
    if toleration.get("effect") and toleration["effect"] != taint.effect:
        return False
    if not toleration.get("key"):
        return toleration.get("operator") == "Exists"
    if toleration["key"] != taint.key:
        return False
    return toleration.get("operator") == "Exists" or toleration.get("value", "") == taint.value
