"""/operations: status, long-poll, resume and cancel of the workflows behind long requests."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from api.authorization import READ, Routes, admin
from api.context import once, plan_or_run
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ConfirmationToken, DryRun
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import Accepted, Plan
from controlplane.models.common import CLUSTER_TAG_PATTERN, DEFAULT_PAGE_SIZE, OPERATION_ID_PATTERN
from controlplane.models.operations import (
    LONG_POLL_EXTENSION,
    MAX_WAIT_SECONDS,
    TERMINAL_STATUSES,
    OperationList,
    OperationView,
)

router = Routes()

OperationIdPath = Annotated[str, Path(pattern=OPERATION_ID_PATTERN)]


@router.get(
    "/operations",
    allow=READ,
    operation_id="operation_list",
    summary="List a cluster's operations, newest first",
    description="Pages of `limit` (default 50); while the answer has `continue`, pass it back to get the next page.",
    tags=["operations"],
)
def list_operations(
    clusterTag: Annotated[str, Query(pattern=CLUSTER_TAG_PATTERN, description="The cluster.")],
    limit: Limit = DEFAULT_PAGE_SIZE,
    continue_: Continue = None,
) -> OperationList:
    refuse_unknown_parameters(router, "clusterTag")
    page = wiring.operations().list_for_cluster(clusterTag, limit, continue_)
    return OperationList(
        operations=[OperationView.of(operation) for operation in page.items], continue_=page.next_token
    )


@router.get(
    "/operations/<operationId>",
    allow=READ,
    operation_id="operation_get",
    summary="Get an operation's status and stages",
    tags=["operations"],
)
def get_operation(operationId: OperationIdPath) -> OperationView:
    return OperationView.of(wiring.operations().get(operationId))


@router.get(
    "/operations/<operationId>/wait",
    allow=READ,
    operation_id="operation_wait",
    summary="Wait for an operation to finish (long poll)",
    description=(
        f"Returns as soon as the operation is SUCCEEDED, FAILED or CANCELLED, or after timeoutSeconds (at most "
        f"{MAX_WAIT_SECONDS}) with its current state. Call again while it is PENDING or RUNNING."
    ),
    tags=["operations"],
    openapi_extensions={
        LONG_POLL_EXTENSION: {"field": "status", "values": [status.value for status in TERMINAL_STATUSES]}
    },
)
def wait_operation(
    operationId: OperationIdPath,
    timeoutSeconds: Annotated[int, Query(ge=0, le=MAX_WAIT_SECONDS, description="Seconds to wait.")] = 20,
) -> OperationView:
    return OperationView.of(wiring.operations().wait(operationId, timeoutSeconds))


@router.post(
    "/operations/<operationId>/resume",
    allow=admin("resume an operation"),
    operation_id="operation_resume",
    summary="Resume a FAILED or CANCELLED operation",
    description=(
        "Runs the workflow again; finished steps see their work done and pass through. 202, then wait. First it runs "
        "the checks a new request of the operation's kind runs (the stage it builds on is done, pre-flight, what it "
        "acts on is still there): a failing one answers as that request would. Only on the cluster it was created "
        "for: once that cluster was deleted, or deleted and created again under the same tag (another incarnation), "
        "409 StaleOperation names both incarnations; start a new request instead. Destructive when the operation "
        "is (`destructive` true: its start needed a confirmation token, e.g. a cluster, group or node delete): without "
        "confirmationToken the answer is the plan of what resuming deletes, terminates or restarts now, with a "
        "single-use token (200), and nothing changes; show it to the person, then repeat with the token. "
        "dryRun=true returns the plan and checks only."
    ),
    tags=["operations"],
    responses={
        202: response_doc(Accepted, "Workflow restarted"),
        200: response_doc(Plan, "The plan (dryRun=true, or a destructive operation without a token)"),
    },
)
def resume_operation(
    operationId: OperationIdPath, confirmationToken: ConfirmationToken = None, dryRun: DryRun = False
) -> Response[str]:
    service = wiring.resumes()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"POST /operations/{operationId}/resume",
        body={"confirmationToken": confirmationToken},
        plan=lambda caller: service.plan(operationId, caller),
        run=lambda caller: service.resume(operationId, confirmationToken, caller),
    )


@router.post(
    "/operations/<operationId>/cancel",
    allow=admin("cancel an operation"),
    operation_id="operation_cancel",
    summary="Cancel a PENDING or RUNNING operation",
    description=(
        "Stops the workflow; finished stages are kept and the operation can be resumed later. Refused (409 "
        "StaleOperation) for an operation of a cluster that was deleted or created again since."
    ),
    tags=["operations"],
    responses={200: response_doc(OperationView, "The cancelled operation")},
)
def cancel_operation(operationId: OperationIdPath) -> Response[str]:
    return once(
        router,
        scope=f"POST /operations/{operationId}/cancel",
        body={},
        run=lambda caller: OperationView.of(wiring.operations().cancel(operationId, caller)),
    )
