"""/clusters/{clusterTag}/nodes: HyperPod nodes with health, and reboot / replace / delete (each an operation)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response

from api.authorization import READ, Permission, RouteRequest, Routes, admin, operator
from api.context import plan_or_run
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath, ConfirmationToken, DryRun, NodeIdPath
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import Accepted, Plan
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.nodes import DESTRUCTIVE_ACTIONS, NodeAction, NodeBatchRequest, NodeList

router = Routes()

CONFIRM = (
    "Without confirmationToken it returns a plan and a single-use token (10 minutes) and changes nothing; show the "
    "plan to the person, then repeat with the token."
)
WAITABLE = (
    "202 with an operation that makes the batch call and waits until each node has settled; wait with "
    "operation_wait. dryRun=true returns the plan."
)
RESPONSES = {202: response_doc(Accepted, "Operation started"), 200: response_doc(Plan, "Plan (and token)")}


def _batch(request: RouteRequest) -> Permission:
    """A batch is the operators' to reboot; replacing or deleting nodes is destructive, which is the admins'."""
    action = str(request.body.get("action"))
    return admin(f"{action} nodes") if action in DESTRUCTIVE_ACTIONS else operator(f"{action} nodes")


@router.get(
    "/clusters/<clusterTag>/nodes",
    allow=READ,
    operation_id="hyperpod_list_nodes",
    summary="List the HyperPod nodes with their health",
    description="The nodes, oldest first, in pages of `limit` (default 50; pass `continue` back for the next page): "
    "instance id, group, type, HyperPod status, the node-health-status label, Kubernetes Ready/schedulable, capacity "
    "type, AZ, launch time and AMI release. Read this before rebooting or replacing; GET "
    "/clusters/{clusterTag}/status counts every node and names the ones not ready.",
    tags=["nodes"],
)
def list_nodes(clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None) -> NodeList:
    refuse_unknown_parameters(router)
    return wiring.nodes().list_nodes(clusterTag, limit, continue_)


@router.post(
    "/clusters/<clusterTag>/nodes/<nodeId>/reboot",
    allow=operator("reboot nodes"),
    operation_id="hyperpod_node_reboot",
    summary="Reboot a node (soft; volumes kept)",
    description="Try this first for a node that is unhealthy but not broken hardware. The pods on the node stop "
    f"until it is back. {CONFIRM} The operation ends when the node is Running again. {WAITABLE}",
    tags=["nodes"],
    responses=RESPONSES,
)
def reboot_node(
    clusterTag: ClusterTagPath, nodeId: NodeIdPath, confirmationToken: ConfirmationToken = None, dryRun: DryRun = False
) -> Response[str]:
    return _act(clusterTag, "reboot", [nodeId], confirmationToken, dryRun)


@router.post(
    "/clusters/<clusterTag>/nodes/<nodeId>/replace",
    allow=admin("replace nodes"),
    operation_id="hyperpod_node_replace",
    summary="Replace a node with new hardware (volumes are destroyed)",
    description=f"For hardware faults a reboot does not fix. The root and secondary EBS volumes are lost. {CONFIRM} "
    f"The operation ends when the replacement is Running; its stage names the new node id. {WAITABLE}",
    tags=["nodes"],
    responses=RESPONSES,
)
def replace_node(
    clusterTag: ClusterTagPath, nodeId: NodeIdPath, confirmationToken: ConfirmationToken = None, dryRun: DryRun = False
) -> Response[str]:
    return _act(clusterTag, "replace", [nodeId], confirmationToken, dryRun)


@router.delete(
    "/clusters/<clusterTag>/nodes/<nodeId>",
    allow=admin("delete nodes"),
    operation_id="hyperpod_node_delete",
    summary="Delete a node (its group shrinks by one)",
    description=f"{CONFIRM} The operation ends when the node is gone. {WAITABLE}",
    tags=["nodes"],
    responses=RESPONSES,
)
def delete_node(
    clusterTag: ClusterTagPath, nodeId: NodeIdPath, confirmationToken: ConfirmationToken = None, dryRun: DryRun = False
) -> Response[str]:
    return _act(clusterTag, "delete", [nodeId], confirmationToken, dryRun)


@router.post(
    "/clusters/<clusterTag>/nodes/batch",
    allow=_batch,
    operation_id="hyperpod_node_batch_action",
    summary="Reboot, replace or delete several nodes in one call",
    description=f"Up to 25 node ids; every id is checked first. Nodes HyperPod refuses are left out (the operation "
    f"fails only when it refuses every node). Rebooting is the operators', replacing and deleting the admins'. "
    f"{CONFIRM} {WAITABLE}",
    tags=["nodes"],
    responses=RESPONSES,
)
def batch_action(clusterTag: ClusterTagPath, body: NodeBatchRequest, dryRun: DryRun = False) -> Response[str]:
    return _act(clusterTag, body.action, body.nodeIds, body.confirmationToken, dryRun)


def _act(cluster_tag: str, action: NodeAction, node_ids: list[str], token: str | None, dry_run: bool) -> Response[str]:
    service = wiring.nodes()
    return plan_or_run(
        router,
        dry_run=dry_run or not token,
        scope=f"{action} {cluster_tag}",
        body={"action": action, "nodeIds": sorted(node_ids), "confirmationToken": token},
        plan=lambda caller: service.plan(cluster_tag, action, node_ids, caller),
        run=lambda caller: service.act(cluster_tag, action, node_ids, token, caller),
    )
