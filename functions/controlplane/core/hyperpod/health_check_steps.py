"""The deep-health-check workflow's steps: StartClusterHealthCheck for the nodes not already in a check, then a poll
(DescribeClusterNode per node) until every node's check has ended, with each node's outcome:
- healthy: Running again, and its Kubernetes node's `deep-health-check-status` is not Failed;
- rebooted: Running again after HyperPod rebooted it for a failed check (the label says Failed);
- replaced: gone, and a node its group launched since the request is Running in its place (named).
A node Running whose health agent still holds it out of scheduling did not recover: the operation fails saying so and
that replacing it is what fixes it. Without the EKS cluster's labels, a node Running again counts as healthy.
"""

from __future__ import annotations

from controlplane.core import deadlines
from controlplane.core.concurrency import each
from controlplane.core.hyperpod.node_steps import NOT_RECOVERED, RUNNING
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway, HyperPodNode
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.models.common import KUBERNETES_NODE_PREFIX
from controlplane.models.errors import NodeNotRecoveredError
from controlplane.models.status import HEALTH_LABEL
from controlplane.models.workflow import ActedNodes, CheckNodeHealthInput, PollState

IN_CHECK = "DeepHealthCheckInProgress"
DEEP_HEALTH_LABEL = "sagemaker.amazonaws.com/deep-health-check-status"
FAILED = "Failed"


class HealthCheckSteps:
    def __init__(self, hyperpod: HyperPodGateway, poll: Poller, eks: EksGateway, kubernetes: KubernetesGateway) -> None:
        self._hyperpod = hyperpod
        self._poll = poll
        self._eks = eks
        self._kubernetes = kubernetes

    def start(self, ctx: CheckNodeHealthInput) -> ActedNodes:
        """StartClusterHealthCheck for the Running nodes (a retry leaves those already in a check alone)."""
        name = ctx.hyperPodClusterName
        live = each(lambda target: self._hyperpod.node(name, target.nodeId), ctx.nodes)
        taken = [
            target.nodeId for target, node in zip(ctx.nodes, live, strict=True) if node and node.status == IN_CHECK
        ]
        pending: dict[str, list[str]] = {}
        for target, node in zip(ctx.nodes, live, strict=True):
            if node is not None and node.status == RUNNING:
                pending.setdefault(target.instanceGroup, []).append(target.nodeId)
        if pending:
            self._hyperpod.start_health_check(name, pending, list(ctx.checks))
        return ActedNodes(nodeIds=sorted([*taken, *(node_id for ids in pending.values() for node_id in ids)]))

    def check(self, ctx: CheckNodeHealthInput) -> PollState:
        """Whether every checked node's check has ended; `status` gives each node's outcome (for the operation)."""
        name = ctx.hyperPodClusterName
        acted = ctx.acted.nodeIds if ctx.acted else []
        live = dict(zip(acted, each(lambda node_id: self._hyperpod.node(name, node_id), acted), strict=True))
        groups = {target.nodeId: target.instanceGroup for target in ctx.nodes}
        launched = {
            group: [
                node
                for node in self._hyperpod.group_nodes_since(name, group, ctx.requestedAt)
                if node.node_id not in groups
            ]
            for group in sorted({groups[node_id] for node_id, node in live.items() if node is None})
        }
        running = [node_id for node_id, node in live.items() if node is not None and node.status == RUNNING]
        ended = all(_ended(node) for node in live.values())
        labels = self._labels(ctx, running) if ended else {}
        settled, states = True, []
        for node_id, node in live.items():
            if node is None:
                candidates = launched[groups[node_id]]
                replacement = candidates.pop(0) if candidates else None
                settled = settled and replacement is not None and replacement.status == RUNNING
                states.append(
                    f"{node_id} replaced by {replacement.node_id} ({replacement.status})"
                    if replacement
                    else f"{node_id} failed its checks; its replacement is not launched yet"
                )
            elif node.status != RUNNING:
                settled = False
                states.append(f"{node_id} {node.status}" + (f" ({node.message})" if node.message else ""))
            elif not ended:
                states.append(f"{node_id} {RUNNING}")
            else:
                verdict = labels.get(node_id, {}).get(DEEP_HEALTH_LABEL)
                states.append(f"{node_id} {'rebooted' if verdict == FAILED else 'healthy'}")
        if settled:
            self._require_recovered(labels)
        wait = Wait(f"deep health checks on {', '.join(acted)} to end", deadlines.HEALTH_CHECKS_DONE)
        return self._poll.poll(ctx, wait, done=settled, status="; ".join(states))

    def _labels(self, ctx: CheckNodeHealthInput, node_ids: list[str]) -> dict[str, dict[str, str]]:
        """The Kubernetes labels of these nodes, by instance id (none without the EKS cluster)."""
        eks = self._eks.find_cluster(ctx.eksClusterName)
        if eks is None or not node_ids:
            return {}
        names = [f"{KUBERNETES_NODE_PREFIX}{node_id}" for node_id in node_ids]
        return {
            node.name.removeprefix(KUBERNETES_NODE_PREFIX): node.labels
            for node in self._kubernetes.nodes_named(eks, ctx.region, names)
        }

    def _require_recovered(self, labels: dict[str, dict[str, str]]) -> None:
        held = {
            node_id: found[HEALTH_LABEL]
            for node_id, found in sorted(labels.items())
            if found.get(HEALTH_LABEL) in NOT_RECOVERED
        }
        if not held:
            return
        nodes = "; ".join(f"{node_id} is Running but its health is {health}" for node_id, health in held.items())
        raise NodeNotRecoveredError(
            f"Checks ended, but not every node recovered: {nodes}. Replace it with hyperpod_node_replace (nodeId "
            f"{', '.join(held)}): plan first, then confirm with the person.",
            {"nodes": [{"nodeId": node_id, "status": RUNNING, "health": h} for node_id, h in held.items()]},
        )


def _ended(node: HyperPodNode | None) -> bool:
    return node is None or node.status == RUNNING
