"""/clusters/{clusterTag}/teams and …/scheduler-policy: HyperPod task governance — each team's compute quota (list,
create, delete), its namespace's preparation for workloads, and the cluster's scheduler policy (priority classes,
fair share: put, delete)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path

from api.authorization import READ, Routes, admin
from api.context import once, plan_or_run
from api.routers.params import ClusterTagPath, ConfirmationToken, DryRun
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import Accepted, Plan
from controlplane.models.governance import (
    TEAM_PATTERN,
    CreateTeamQuotaRequest,
    SchedulerPolicyRequest,
    SchedulerPolicyView,
    TeamsView,
    TeamView,
    UpdateTeamQuotaRequest,
)

router = Routes()

TeamPath = Annotated[str, Path(pattern=TEAM_PATTERN, max_length=40)]


@router.get(
    "/clusters/<clusterTag>/teams",
    allow=READ,
    operation_id="hyperpod_list_teams",
    summary="List the teams and their compute quotas",
    description="Each team's quota, namespace and Kueue queue; capacity and guarantees per instance type; the "
    "scheduler policy.",
    tags=["teams"],
)
def list_teams(clusterTag: ClusterTagPath) -> TeamsView:
    return wiring.teams().teams(clusterTag)


@router.post(
    "/clusters/<clusterTag>/teams",
    allow=admin("create team quotas"),
    operation_id="hyperpod_create_team",
    summary="Create a team with its compute quota",
    description="Needs the taskGovernance feature; the quotas must fit the cluster's capacity.",
    tags=["teams"],
    responses={201: response_doc(TeamView, "Team created")},
)
def create_team(clusterTag: ClusterTagPath, request: CreateTeamQuotaRequest) -> Response[str]:
    return once(
        router,
        scope=f"teams#{clusterTag}",
        body=request.model_dump(mode="json"),
        run=lambda caller: wiring.teams().create(clusterTag, request, caller),
        status=201,
    )


@router.post(
    "/clusters/<clusterTag>/teams/<team>/namespace",
    allow=admin("prepare team namespaces"),
    operation_id="hyperpod_prepare_team_namespace",
    summary="Prepare a team namespace again",
    description="Run again when namespaceReady is false and no operation prepares it (namespaceMissing says why): "
    "copies the storage claims and jobs' identity into hyperpod-ns-<team>. 202 with the operation.",
    tags=["teams"],
    responses={202: response_doc(Accepted, "Operation started")},
)
def prepare_team_namespace(clusterTag: ClusterTagPath, team: TeamPath) -> Response[str]:
    return once(
        router,
        scope=f"team-namespace#{clusterTag}/{team}",
        body={"team": team},
        run=lambda caller: wiring.teams().prepare_namespace(clusterTag, team, caller),
    )


@router.patch(
    "/clusters/<clusterTag>/teams/<team>",
    allow=admin("change team quotas"),
    operation_id="hyperpod_update_team",
    summary="Change a team's compute quota",
    description="Only the fields sent change; new allocations must fit the cluster's capacity.",
    tags=["teams"],
    responses={200: response_doc(Plan | TeamView, "Plan (and token), or the changed team")},
)
def update_team(
    clusterTag: ClusterTagPath,
    team: TeamPath,
    request: UpdateTeamQuotaRequest,
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.teams()
    return plan_or_run(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"update-team {clusterTag}/{team}",
        body={**request.model_dump(mode="json", exclude_unset=True), "confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_update(clusterTag, team, request, caller),
        run=lambda caller: service.update(clusterTag, team, request, confirmationToken or "", caller),
    )


@router.delete(
    "/clusters/<clusterTag>/teams/<team>",
    allow=admin("delete team quotas"),
    operation_id="hyperpod_delete_team",
    summary="Delete a team's compute quota",
    description="Its jobs then wait for idle capacity.",
    tags=["teams"],
    responses={200: response_doc(Plan | TeamView, "Plan (and token), or the deleted team")},
)
def delete_team(
    clusterTag: ClusterTagPath, team: TeamPath, confirmationToken: ConfirmationToken = None, dryRun: DryRun = False
) -> Response[str]:
    service = wiring.teams()
    return plan_or_run(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"delete-team {clusterTag}/{team}",
        body={"team": team, "confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_delete(clusterTag, team, caller),
        run=lambda caller: service.delete(clusterTag, team, confirmationToken or "", caller),
    )


@router.put(
    "/clusters/<clusterTag>/scheduler-policy",
    allow=admin("set the scheduler policy"),
    operation_id="hyperpod_put_scheduler_policy",
    summary="Set the cluster's scheduler policy (priority classes, fair share)",
    description="A change needs its plan's token (dryRun=true).",
    tags=["teams"],
    responses={200: response_doc(Plan | SchedulerPolicyView, "The policy, or the plan with dryRun")},
)
def put_scheduler_policy(
    clusterTag: ClusterTagPath,
    request: SchedulerPolicyRequest,
    confirmationToken: ConfirmationToken = None,
    dryRun: DryRun = False,
) -> Response[str]:
    service = wiring.scheduler_policy()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"scheduler-policy {clusterTag}",
        body={**request.model_dump(mode="json"), "confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_put(clusterTag, request, caller),
        run=lambda caller: service.put(clusterTag, request, confirmationToken, caller),
    )


@router.delete(
    "/clusters/<clusterTag>/scheduler-policy",
    allow=admin("delete the scheduler policy"),
    operation_id="hyperpod_delete_scheduler_policy",
    summary="Delete the cluster's scheduler policy",
    tags=["teams"],
    responses={200: response_doc(Plan | SchedulerPolicyView, "Plan (and token), or the deleted policy")},
)
def delete_scheduler_policy(
    clusterTag: ClusterTagPath, confirmationToken: ConfirmationToken = None, dryRun: DryRun = False
) -> Response[str]:
    service = wiring.scheduler_policy()
    return plan_or_run(
        router,
        dry_run=dryRun or not confirmationToken,
        scope=f"delete-scheduler-policy {clusterTag}",
        body={"confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_delete(clusterTag, caller),
        run=lambda caller: service.delete(clusterTag, confirmationToken or "", caller),
    )
