"""/clusters/{clusterTag}/instance-groups and /software-update: capacity of a running HyperPod cluster."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from api.context import actor, idempotency_key, plan_or_start
from api.idempotency import run_once
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.responses import json_response, recorded, response_doc
from controlplane import wiring
from controlplane.models.clusters import Accepted, Plan
from controlplane.models.common import CLUSTER_TAG_PATTERN, CLUSTER_TAG_RULE, DEFAULT_PAGE_SIZE
from controlplane.models.hyperpod import GROUP_NAME_PATTERN
from controlplane.models.instance_groups import (
    AddInstanceGroupRequest,
    InstanceGroupList,
    SoftwareUpdateRequest,
    UpdateInstanceGroupRequest,
    UpdateResult,
)
from controlplane.models.operations import OperationView

router = Router()

ClusterTagPath = Annotated[str, Path(pattern=CLUSTER_TAG_PATTERN, description=f"Cluster tag ({CLUSTER_TAG_RULE}).")]
GroupNamePath = Annotated[str, Path(pattern=GROUP_NAME_PATTERN, description="Instance group name.")]
DryRun = Annotated[bool, Query(description="Return the planned actions without doing anything.")]


@router.get(
    "/clusters/<clusterTag>/instance-groups",
    operation_id="cluster_get_instance_groups",
    summary="List the HyperPod cluster's instance groups",
    description="Each group as HyperPod reports it now: type, status, current/target/minimum counts, capacity type, "
    "training plan, network interface, subnets, deep health checks, labels, taints, AMI release and any scaling or "
    "software update in progress. Pages of `limit` (default 50); pass `continue` back for the next page.",
    tags=["instance-groups"],
)
def list_instance_groups(
    clusterTag: ClusterTagPath, limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None
) -> InstanceGroupList:
    refuse_unknown_parameters(router)
    return wiring.instance_groups().list(clusterTag, limit, continue_)


@router.post(
    "/clusters/<clusterTag>/instance-groups",
    operation_id="hyperpod_add_instance_group",
    summary="Add an instance group to the HyperPod cluster",
    description=(
        "Capacity is decided here and some of it is immutable: ask the person for the instance type, count, AZ and "
        "capacity type (on-demand, spot, or training-plan whose AZ takes precedence), and whether the group needs "
        "efa-only interfaces (only for types with more than one EFA card; cannot change later) or its own subnet. "
        "Custom taints exclude deep health checks. 202 with an operation; wait with operation_wait. dryRun=true "
        "returns the plan."
    ),
    tags=["instance-groups"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan (dryRun=true)")},
)
def add_instance_group(
    clusterTag: ClusterTagPath, body: AddInstanceGroupRequest, dryRun: DryRun = False
) -> Response[str]:
    service = wiring.instance_groups()
    return plan_or_start(
        router,
        dry_run=dryRun,
        scope=f"POST /clusters/{clusterTag}/instance-groups",
        body=body.model_dump(mode="json"),
        plan=lambda caller: service.plan_add(clusterTag, body),
        start=lambda caller: service.add(clusterTag, body, caller),
    )


@router.patch(
    "/clusters/<clusterTag>/instance-groups/<name>",
    operation_id="hyperpod_update_instance_group",
    summary="Scale or change an instance group (explicit diff)",
    description=(
        "Send only the fields to change: instanceCount (scale), minInstanceCount, labels, taints, deepHealthChecks. "
        "Every other field of the group is resent unchanged; null is refused for every field (leave a field out to "
        "keep it, send {} or [] to clear labels or taints). The answer says per field unchanged or updated; when "
        "something changes it starts an operation (202, wait with operation_wait); when nothing does, 200 and no "
        "operation. instanceType and networkInterface are immutable. Scaling below the minimum is refused."
    ),
    tags=["instance-groups"],
    responses={202: response_doc(UpdateResult, "Operation started"), 200: response_doc(UpdateResult, "No change")},
)
def update_instance_group(
    clusterTag: ClusterTagPath, name: GroupNamePath, body: UpdateInstanceGroupRequest, dryRun: DryRun = False
) -> Response[str]:
    service = wiring.instance_groups()
    caller = actor(router)
    if dryRun:
        changes = service.diff(clusterTag, name, body)
        checks = service.growth_checks(clusterTag, name, body)
        return json_response(200, UpdateResult(changes=changes, checks=checks, message="Dry run: nothing was changed."))

    def update() -> dict[str, object]:
        changes, operation = service.update(clusterTag, name, body, caller)
        if operation is None:
            result = UpdateResult(changes=changes, message="Every field already has the requested value.")
            return {"status": 200, "body": result.model_dump(mode="json", exclude_none=True)}
        result = UpdateResult(
            changes=changes,
            operationId=operation.operationId,
            operation=OperationView.of(operation),
            message="Update started; call operation_wait with operationId until it is terminal.",
        )
        return {"status": 202, "body": result.model_dump(mode="json", exclude_none=True)}

    scope = f"{caller.principal}#PATCH /clusters/{clusterTag}/instance-groups/{name}"
    return recorded(run_once(idempotency_key(router), scope, body.model_dump(mode="json", exclude_unset=True), update))


@router.delete(
    "/clusters/<clusterTag>/instance-groups/<name>",
    operation_id="hyperpod_delete_instance_group",
    summary="Delete an instance group and its nodes",
    description=(
        "Destructive. Without confirmationToken, returns the plan and a single-use token (10 minutes) and changes "
        "nothing: show the plan to the person and ask them to confirm. Repeat with the token to start the deletion "
        "(202). Refused while workload pods run on the group's nodes."
    ),
    tags=["instance-groups"],
    responses={202: response_doc(Accepted, "Deletion started"), 200: response_doc(Plan, "Plan and token")},
)
def delete_instance_group(
    clusterTag: ClusterTagPath,
    name: GroupNamePath,
    confirmationToken: Annotated[str | None, Query(description="Token from a prior plan.")] = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.instance_groups()
    return plan_or_start(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"DELETE /clusters/{clusterTag}/instance-groups/{name}",
        body={"confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_delete(clusterTag, name, caller),
        start=lambda caller: service.delete(clusterTag, name, confirmationToken or "", caller),
    )


@router.post(
    "/clusters/<clusterTag>/software-update",
    operation_id="hyperpod_update_software",
    summary="Patch the AMI of the cluster's instance groups (rolling)",
    description=(
        "UpdateClusterSoftware for the named groups (default: all) to the latest HyperPod AMI release or imageId, "
        "a batch of nodes at a time (rollingPolicy; default 20% with no wait). Nodes restart: confirm the timing "
        "with the person. Groups already up to date are left alone. 202 with an operation; dryRun=true returns the "
        "plan with each group's current release."
    ),
    tags=["instance-groups"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan (dryRun=true)")},
)
def update_software(clusterTag: ClusterTagPath, body: SoftwareUpdateRequest, dryRun: DryRun = False) -> Response[str]:
    service = wiring.instance_groups()
    return plan_or_start(
        router,
        dry_run=dryRun,
        scope=f"POST /clusters/{clusterTag}/software-update",
        body=body.model_dump(mode="json"),
        plan=lambda caller: service.plan_software_update(clusterTag, body),
        start=lambda caller: service.update_software(clusterTag, body, caller),
    )
