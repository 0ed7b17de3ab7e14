"""Node actions on the control plane's own HyperPod clusters: one batch call each (reboot, replace, delete), then a
check that reads the nodes until each has settled. The three actions share the service's `act` and `check`; a
reboot's check also reads the rebooted nodes' health in Kubernetes (did the reboot cure them). A deep health check
is one StartClusterHealthCheck, then a check that reads each node's outcome."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.conditions import MANAGED_RESOURCE
from controlplane.access.eks import DESCRIBE_EKS_CLUSTER
from controlplane.access.grant import ASSUME_KUBERNETES_ROLE, Grant
from controlplane.access.hyperpod import HYPERPOD_CLUSTERS, HYPERPOD_CLUSTERS_REASON, READ_NODES
from controlplane.models.workflow import CheckNodeHealthInput, NodeActionInput
from steps.groups import NODES
from steps.step import Step, work


def _act(name: str, action: str) -> Step:
    """A batch node call, on the control plane's own HyperPod clusters only."""
    return work(
        name,
        NODES,
        NodeActionInput,
        lambda ctx: wiring.node_steps(ctx.region).act(ctx),
        (READ_NODES, Grant((action,), HYPERPOD_CLUSTERS, MANAGED_RESOURCE, HYPERPOD_CLUSTERS_REASON)),
    )


def _check(name: str, *grants: Grant) -> Step:
    return work(
        name,
        NODES,
        NodeActionInput,
        lambda ctx: wiring.node_steps(ctx.region).check(ctx),
        (READ_NODES, *grants),
        waiting="{status}",
    )


START_HEALTH_CHECK = Grant(
    ("sagemaker:StartClusterHealthCheck",), HYPERPOD_CLUSTERS, MANAGED_RESOURCE, HYPERPOD_CLUSTERS_REASON
)

STEPS = (
    _act("Reboot Nodes", "sagemaker:BatchRebootClusterNodes"),
    _act("Replace Nodes", "sagemaker:BatchReplaceClusterNodes"),
    _act("Delete Nodes", "sagemaker:BatchDeleteClusterNodes"),
    _check("Check Nodes Rebooted", DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE),
    _check("Check Nodes Replaced"),
    _check("Check Nodes Deleted"),
    work(
        "Start Health Check",
        NODES,
        CheckNodeHealthInput,
        lambda ctx: wiring.health_check_steps(ctx.region).start(ctx),
        (READ_NODES, START_HEALTH_CHECK),
    ),
    work(
        "Check Health Check",
        NODES,
        CheckNodeHealthInput,
        lambda ctx: wiring.health_check_steps(ctx.region).check(ctx),
        (READ_NODES, DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE),
        waiting="{status}",
    ),
)
