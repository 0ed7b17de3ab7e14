"""/clusters/{clusterTag}/spaces: dev spaces (JupyterLab, Code Editor) with the S3 claim at ~/workspace/s3 — create,
list with how to open each, start or stop, delete behind plan → confirm."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path

from api.authorization import READ, Routes, operator
from api.context import once, plan_or_run
from api.routers.params import ClusterTagPath, ConfirmationToken
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import Plan
from controlplane.models.spaces import (
    SPACE_NAME_PATTERN,
    CreateSpaceRequest,
    SpaceList,
    SpaceView,
    UpdateSpaceRequest,
)

router = Routes()

SpaceNamePath = Annotated[str, Path(pattern=SPACE_NAME_PATTERN, description="Space name.")]


@router.get(
    "/clusters/<clusterTag>/spaces",
    allow=READ,
    operation_id="space_list",
    summary="List the cluster's dev spaces",
    description="Each space's status and, once Running, how to open it; and the images spaces may use.",
    tags=["spaces"],
)
def list_spaces(clusterTag: ClusterTagPath) -> SpaceList:
    return wiring.spaces().list_spaces(clusterTag)


@router.post(
    "/clusters/<clusterTag>/spaces",
    allow=operator("create a dev space"),
    operation_id="space_create",
    summary="Create a JupyterLab or Code Editor space",
    description="Needs the devSpaces feature. The S3 claim is mounted at ~/workspace/s3. Starting until Running: "
    "then space_list says how to open it.",
    tags=["spaces"],
    responses={201: response_doc(SpaceView, "Space created")},
)
def create_space(clusterTag: ClusterTagPath, request: CreateSpaceRequest) -> Response[str]:
    return once(
        router,
        scope=f"spaces#{clusterTag}",
        body=request.model_dump(mode="json"),
        run=lambda caller: wiring.spaces().create(clusterTag, request),
        status=201,
    )


@router.patch(
    "/clusters/<clusterTag>/spaces/<name>",
    allow=operator("start or stop a dev space"),
    operation_id="space_set_status",
    summary="Start or stop a dev space",
    description="Stopped frees its GPUs and keeps its storage.",
    tags=["spaces"],
)
def update_space(clusterTag: ClusterTagPath, name: SpaceNamePath, request: UpdateSpaceRequest) -> SpaceView:
    return wiring.spaces().update(clusterTag, name, request)


@router.delete(
    "/clusters/<clusterTag>/spaces/<name>",
    allow=operator("delete a dev space"),
    operation_id="space_delete",
    summary="Delete a dev space and its home storage",
    tags=["spaces"],
    responses={200: response_doc(Plan, "The plan and its token, or (dryRun false) what was deleted")},
)
def delete_space(
    clusterTag: ClusterTagPath, name: SpaceNamePath, confirmationToken: ConfirmationToken = None
) -> Response[str]:
    service = wiring.spaces()
    return plan_or_run(
        router,
        dry_run=not confirmationToken,
        scope=f"DELETE /clusters/{clusterTag}/spaces/{name}",
        body={"confirmationToken": confirmationToken},
        plan=lambda caller: service.plan_delete(clusterTag, name, caller),
        run=lambda caller: service.delete(clusterTag, name, confirmationToken or "", caller),
    )
