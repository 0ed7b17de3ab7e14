"""/clusters/{clusterTag}/instance-groups and /software-update: capacity of a running HyperPod cluster."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path

from api.authorization import READ, Routes, admin
from api.context import plan_or_run
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath, ConfirmationToken, DryRun
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import Accepted, Plan
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.hyperpod import GROUP_NAME_PATTERN
from controlplane.models.instance_groups import (
    AddInstanceGroupRequest,
    InstanceGroupList,
    SoftwareUpdateRequest,
    UpdateInstanceGroupRequest,
    UpdateResult,
)

router = Routes()

GroupNamePath = Annotated[str, Path(pattern=GROUP_NAME_PATTERN, description="Instance group name.")]


@router.get(
    "/clusters/<clusterTag>/instance-groups",
    allow=READ,
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
    allow=admin("add an instance group"),
    operation_id="hyperpod_add_instance_group",
    summary="Add an instance group to the HyperPod cluster",
    description=(
        "Capacity is decided here and some of it is immutable. Ask the person for the instance type, count, AZ, "
        "capacity type, efa-only interfaces and an own subnet, offering what cluster_get_available_instances and "
        "region_get_quotas list. "
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
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"POST /clusters/{clusterTag}/instance-groups",
        body=body.model_dump(mode="json"),
        plan=lambda caller: service.plan_add(clusterTag, body),
        run=lambda caller: service.add(clusterTag, body, caller),
    )


@router.patch(
    "/clusters/<clusterTag>/instance-groups/<name>",
    allow=admin("change an instance group"),
    operation_id="hyperpod_update_instance_group",
    summary="Scale or change an instance group (explicit diff)",
    description=(
        "Send only the fields to change: instanceCount (scale), minInstanceCount, labels, taints, deepHealthChecks. "
        "Every other field of the group is resent unchanged; null is refused for every field (leave a field out to "
        "keep it, send {} or [] to clear labels or taints). The answer says per field unchanged or updated; when "
        "something changes it starts an operation (202, wait with operation_wait); when nothing does, 200 and no "
        "operation. instanceType and networkInterface are immutable. Scaling below the minimum is refused. "
        "Destructive when instanceCount is below the current count (nodes are terminated): without "
        "confirmationToken that returns the plan and a single-use token (200) and changes nothing; show the plan "
        "to the person, then repeat with the token."
    ),
    tags=["instance-groups"],
    responses={
        202: response_doc(UpdateResult, "Operation started"),
        200: response_doc(UpdateResult, "No change, or the plan (dryRun=true, or a scale-down without a token)"),
    },
)
def update_instance_group(
    clusterTag: ClusterTagPath,
    name: GroupNamePath,
    body: UpdateInstanceGroupRequest,
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.instance_groups()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"PATCH /clusters/{clusterTag}/instance-groups/{name}",
        body={**body.model_dump(mode="json", exclude_unset=True), "confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_update(clusterTag, name, body, caller),
        run=lambda caller: service.update(clusterTag, name, body, confirmationToken, caller),
        status=lambda result: 202 if result.operationId else 200,
    )


@router.delete(
    "/clusters/<clusterTag>/instance-groups/<name>",
    allow=admin("delete an instance group"),
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
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.instance_groups()
    return plan_or_run(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"DELETE /clusters/{clusterTag}/instance-groups/{name}",
        body={"confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_delete(clusterTag, name, caller),
        run=lambda caller: service.delete(clusterTag, name, confirmationToken or "", caller),
    )


@router.post(
    "/clusters/<clusterTag>/software-update",
    allow=admin("update cluster software"),
    operation_id="hyperpod_update_software",
    summary="Patch the AMI of the cluster's instance groups (rolling)",
    description=(
        "UpdateClusterSoftware for the named groups (default: all) to the latest HyperPod AMI release or imageId, "
        "a batch of nodes at a time (rollingPolicy; default 20% with no wait). Destructive: nodes restart, so "
        "without confirmationToken it returns the plan (each group with its current release) and a single-use "
        "token (200) and changes nothing; confirm the timing with the person, then repeat with the token (202 "
        "with an operation). Groups already up to date are left alone."
    ),
    tags=["instance-groups"],
    responses={202: response_doc(Accepted, "Workflow started"), 200: response_doc(Plan, "Plan and token")},
)
def update_software(
    clusterTag: ClusterTagPath,
    body: SoftwareUpdateRequest,
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.instance_groups()
    return plan_or_run(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"POST /clusters/{clusterTag}/software-update",
        body={**body.model_dump(mode="json"), "confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_software_update(clusterTag, body, caller),
        run=lambda caller: service.update_software(clusterTag, body, confirmationToken or "", caller),
    )
