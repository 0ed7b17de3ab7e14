"""/clusters/{clusterTag}/downloads and /clusters/{clusterTag}/storage/contents: Hugging Face models and datasets
copied into the S3 claim (an operation), and the claim's contents by prefix."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from api.authorization import READ, Routes, operator
from api.context import once
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from api.routers.params import ClusterTagPath
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.clusters import Accepted
from controlplane.models.common import DEFAULT_PAGE_SIZE
from controlplane.models.downloads import DownloadRequest, StorageContents

router = Routes()

PrefixQuery = Annotated[str, Query(max_length=1024, description="Only keys that start with this, e.g. `models/`.")]


@router.post(
    "/clusters/<clusterTag>/downloads",
    allow=operator("download a model or dataset"),
    operation_id="model_download_enhanced",
    summary="Download a Hugging Face model or dataset into the cluster's S3 claim",
    description="Starts an operation whose Kubernetes Job copies the repository `repoId` (at `revision`) into the "
    "S3 claim at `<prefix>/<repoId>` (prefix `models` or `datasets` by default), which jobs see at "
    "`/s3/<prefix>/<repoId>`. A gated or private repository needs `token` (kept only in a Kubernetes Secret, never "
    "returned) or `tokenSecret` (an existing Secret). `sizeGiB` sizes how long the operation waits. 202 with the "
    "operation; wait with operation_wait, then s3_storage_list_contents shows the files. A failed download fails "
    "the operation with the Job's reason; fix it and resume the operation.",
    tags=["storage"],
    responses={202: response_doc(Accepted, "Operation started")},
)
def download(clusterTag: ClusterTagPath, request: DownloadRequest) -> Response[str]:
    # The token is not part of the idempotency payload: only its presence is (pydantic masks a SecretStr).
    return once(
        router,
        scope=f"downloads#{clusterTag}",
        body=request.model_dump(mode="json"),
        run=lambda caller: wiring.downloads().start(clusterTag, request, caller),
    )


@router.get(
    "/clusters/<clusterTag>/storage/contents",
    allow=READ,
    operation_id="s3_storage_list_contents",
    summary="List the S3 claim's contents by prefix",
    description="The objects in the cluster's S3 claim (its bucket, mounted at /s3 in jobs) whose keys start with "
    "`prefix`, by key, in pages of `limit` (pass `continue` back for the next page): key and size. A download "
    "lands under `models/<repoId>/` or `datasets/<repoId>/`.",
    tags=["storage"],
)
def list_contents(
    clusterTag: ClusterTagPath, prefix: PrefixQuery = "", limit: Limit = DEFAULT_PAGE_SIZE, continue_: Continue = None
) -> StorageContents:
    refuse_unknown_parameters(router, "prefix")
    return wiring.downloads().list_contents(clusterTag, prefix, limit, continue_)
