"""The node-action workflows' steps: one batch call (reboot, replace or delete), then a poll until every node it
took has settled: rebooted nodes Running again, replaced nodes gone with a Running replacement in their group
(whose id is reported), deleted nodes gone.

A rebooted node is Running again whether or not the reboot cured it: HyperPod's health agent may still hold it out of
scheduling (its Kubernetes node's health label, e.g. UnschedulablePendingReplacement). Such a node did not recover,
and the check fails the operation saying what the node is now and that replacing it is what fixes it.

The batch call observes first, so that a retry or a resume does not act twice on a node already in progress: a
node that is rebooting, shutting down or gone counts as taken. HyperPod reports failures per node; a call that
every node refused fails the step (and the operation), naming each node's reason.
"""

from __future__ import annotations

from controlplane.core import deadlines
from controlplane.core.concurrency import each
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway, HyperPodNode
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.models.common import KUBERNETES_NODE_PREFIX
from controlplane.models.errors import DependencyFailedError, NodeNotRecoveredError
from controlplane.models.nodes import NodeAction
from controlplane.models.status import HEALTH_LABEL
from controlplane.models.workflow import ActedNodes, NodeActionInput, PollState

RUNNING = "Running"
# A node in these states is not on its way through an action: rebooting it is a fresh request.
IDLE_STATES = {RUNNING, "Failure"}
# The health agent's verdicts a reboot does not clear: the node stays out of scheduling until it is replaced.
NOT_RECOVERED = {"Unschedulable", "UnschedulablePendingReplacement"}


class NodeSteps:
    def __init__(self, hyperpod: HyperPodGateway, poll: Poller, eks: EksGateway, kubernetes: KubernetesGateway) -> None:
        self._hyperpod = hyperpod
        self._poll = poll
        self._eks = eks
        self._kubernetes = kubernetes

    def act(self, ctx: NodeActionInput) -> ActedNodes:
        """The batch call for the nodes not already taken; the nodes taken are kept for the check."""
        name = ctx.hyperPodClusterName
        ids = [node.nodeId for node in ctx.nodes]
        live = each(lambda node_id: self._hyperpod.node(name, node_id), ids)
        taken = [node_id for node_id, node in zip(ids, live, strict=True) if _in_progress(ctx.action, node)]
        pending = [node_id for node_id in ids if node_id not in taken]
        if not pending:
            return ActedNodes(nodeIds=taken)
        outcome = self._hyperpod.node_action(name, ctx.action, pending)
        if not outcome.successful and not taken:
            reasons = "; ".join(f"{item.node_id}: {item.code} {item.message}".strip() for item in outcome.failed)
            raise DependencyFailedError(
                f"HyperPod refused to {ctx.action} every node ({reasons}). Read the nodes' status with "
                "hyperpod_list_nodes, fix the cause, then start a new request."
            )
        return ActedNodes(nodeIds=sorted([*taken, *outcome.successful]))

    def check(self, ctx: NodeActionInput) -> PollState:
        """Whether every node taken has settled; `status` says, per node, where it stands (for the operation)."""
        name = ctx.hyperPodClusterName
        acted = ctx.acted.nodeIds if ctx.acted else []
        live = dict(zip(acted, each(lambda node_id: self._hyperpod.node(name, node_id), acted), strict=True))
        if ctx.action == "replace":
            settled, states = self._replacements(ctx, live)
        else:
            settled, states = _settled(ctx.action, live)
        if ctx.action == "reboot" and settled:
            self._require_recovered(ctx, acted)
        wait = Wait(f"nodes {', '.join(acted)} to settle after {ctx.action}", deadlines.NODES_SETTLED)
        return self._poll.poll(ctx, wait, done=settled, status="; ".join(states))

    def _require_recovered(self, ctx: NodeActionInput, node_ids: list[str]) -> None:
        """Fail, saying what each node is now and what to do, when the health agent still holds a rebooted node out
        of scheduling."""
        eks = self._eks.find_cluster(ctx.eksClusterName)
        if eks is None or not node_ids:
            return
        names = [f"{KUBERNETES_NODE_PREFIX}{node_id}" for node_id in node_ids]
        verdicts = {
            node.name.removeprefix(KUBERNETES_NODE_PREFIX): node.labels.get(HEALTH_LABEL, "")
            for node in self._kubernetes.nodes_named(eks, ctx.region, names)
        }
        unrecovered = {node_id: health for node_id, health in sorted(verdicts.items()) if health in NOT_RECOVERED}
        if not unrecovered:
            return
        nodes = "; ".join(f"{node_id} is Running but its health is {health}" for node_id, health in unrecovered.items())
        raise NodeNotRecoveredError(
            f"Rebooted, but not recovered: {nodes} (HyperPod's health agent keeps it out of scheduling, and a reboot "
            f"does not clear that). Replace it with hyperpod_node_replace (nodeId "
            f"{', '.join(unrecovered)}): plan first, then confirm with the person. Resuming this reboot would only "
            "reboot it again.",
            {"nodes": [{"nodeId": node_id, "status": RUNNING, "health": h} for node_id, h in unrecovered.items()]},
        )

    def _replacements(self, ctx: NodeActionInput, live: dict[str, HyperPodNode | None]) -> tuple[bool, list[str]]:
        """Each replaced node gone and paired with a node its group launched since the request (in launch order)."""
        groups = {node.nodeId: node.instanceGroup for node in ctx.nodes}
        requested = set(groups)
        launched = {
            group: [
                node
                for node in self._hyperpod.group_nodes_since(ctx.hyperPodClusterName, group, ctx.requestedAt)
                if node.node_id not in requested
            ]
            for group in sorted({groups[node_id] for node_id in live})
        }
        settled, states = True, []
        for node_id, node in live.items():
            if node is not None:
                settled = False
                states.append(f"{node_id} {node.status} ({node.message or 'being replaced'})")
                continue
            candidates = launched[groups[node_id]]
            replacement = candidates.pop(0) if candidates else None
            if replacement is None:
                settled = False
                states.append(f"{node_id} terminated, its replacement not launched yet")
            else:
                settled = settled and replacement.status == RUNNING
                states.append(f"{node_id} replaced by {replacement.node_id} ({replacement.status})")
        return settled, states


def _in_progress(action: NodeAction, node: HyperPodNode | None) -> bool:
    """A node the action already took: rebooting, or shutting down or gone (replace, delete)."""
    if action == "reboot":
        return node is not None and node.status not in IDLE_STATES
    return node is None or node.status == "ShuttingDown"


def _settled(action: NodeAction, live: dict[str, HyperPodNode | None]) -> tuple[bool, list[str]]:
    """Reboot: every node Running again. Delete: every node gone."""
    states = []
    settled = True
    for node_id, node in live.items():
        if action == "delete":
            settled = settled and node is None
            states.append(f"{node_id} deleted" if node is None else f"{node_id} {node.status}")
        else:
            settled = settled and node is not None and node.status == RUNNING
            states.append(f"{node_id} {node.status if node else 'gone'}")
    return settled, states
