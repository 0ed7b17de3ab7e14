"""/clusters/{clusterTag}/events, a node's health history, and the cluster's remediation policy (day two)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from api.authorization import READ, Routes, admin
from api.context import actor
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath, ConfirmationToken, NodeIdPath
from api.routers.responses import json_response, response_doc
from controlplane import wiring
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.events import EventList, NodeHistory, RemediationPolicy, RemediationPolicyView

router = Routes()


@router.get(
    "/clusters/<clusterTag>/events",
    allow=READ,
    operation_id="events_list",
    summary="List the HyperPod events recorded for a cluster",
    description="HyperPod's EventBridge events for this cluster (status changes, node health, Error-level cluster "
    "events) and the remediation policy's decisions on them, newest first, in pages of `limit` (default 50; pass "
    "`continue` back). Read this first when a node or an operation misbehaves; a node's own is "
    "GET /clusters/{clusterTag}/nodes/{nodeId}/history.",
    tags=["events"],
)
def list_events(clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None) -> EventList:
    refuse_unknown_parameters(router)
    return wiring.events().events(clusterTag, limit, continue_)


@router.get(
    "/clusters/<clusterTag>/nodes/<nodeId>/history",
    allow=READ,
    operation_id="hyperpod_node_history",
    summary="A node's health history",
    description="The node's health events and what the remediation policy did about each (outcome, and the node "
    "operation it started), newest first, paged (`limit`, `continue`).",
    tags=["events"],
)
def node_history(
    clusterTag: ClusterTagPath, nodeId: NodeIdPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None
) -> NodeHistory:
    refuse_unknown_parameters(router)
    return wiring.events().node_history(clusterTag, nodeId, limit, continue_)


@router.get(
    "/clusters/<clusterTag>/remediation-policy",
    allow=READ,
    operation_id="remediation_policy_get",
    summary="Read the cluster's remediation policy",
    description="What an unhealthy-node event does on this cluster when HyperPod's own recovery did not act: notify "
    "(record only, the default), reboot or replace, with limits per hour and per instance group, and dry run.",
    tags=["events"],
)
def get_policy(clusterTag: ClusterTagPath) -> RemediationPolicyView:
    return wiring.remediation_policy().policy(clusterTag)


@router.put(
    "/clusters/<clusterTag>/remediation-policy",
    allow=admin("set the remediation policy"),
    operation_id="remediation_policy_put",
    summary="Set the cluster's remediation policy",
    description="Replaces the policy; resending the policy in force changes nothing. recordOnly makes the policy "
    "record what it would do without doing it. dryRun=true (query) returns the policy that would be stored and "
    "stores nothing. Destructive when action is replace (not recordOnly): each unhealthy node HyperPod does not "
    "repair is replaced and its volumes destroyed, with no one asked at the time. Without confirmationToken that is "
    "refused (400 ConfirmationRequired) with the plan and a single-use token (10 minutes) in details, and nothing "
    "is stored; show the plan to the person, then repeat the same request with the token.",
    tags=["events"],
    responses={200: response_doc(RemediationPolicyView, "The policy as stored (or as it would be)")},
)
def put_policy(
    clusterTag: ClusterTagPath,
    body: RemediationPolicy,
    confirmationToken: ConfirmationToken = None,
    dryRun: Annotated[bool, Query(description="Return the policy without storing it.")] = False,
) -> Response[str]:
    policies = wiring.remediation_policy()
    stored = policies.set_policy(clusterTag, body, actor(router), dry_run=dryRun, token=confirmationToken)
    return json_response(200, stored)
