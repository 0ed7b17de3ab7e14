"""/audit: the audit trail, one entry per mutating request (who, what, target, operation, outcome), newest first."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from api.authorization import Routes, operator
from api.routers.paging import Continue, Limit, refuse_unknown_parameters
from controlplane import wiring
from controlplane.core.ports.persistence import AuditQuery
from controlplane.models.audit import AuditList
from controlplane.models.common import CLUSTER_TAG_PATTERN, DEFAULT_PAGE_SIZE, OPERATION_ID_PATTERN

router = Routes()


@router.get(
    "/audit",
    # The trail names people and their refused requests: it is for those who act on clusters (operator up).
    allow=operator("read the audit trail"),
    operation_id="audit_list",
    summary="List the audit trail, newest first",
    description=(
        "One entry per mutating request, refusals included: who (and for whom, through the MCP server), the role "
        "enforced, the action, target, operation id, request id and HTTP outcome. Narrow it with clusterTag, actor "
        "or operationId. Pages of `limit` (default 50); while the answer has `continue`, pass it back for the next."
    ),
    tags=["audit"],
)
def list_audit(
    clusterTag: Annotated[
        str | None, Query(pattern=CLUSTER_TAG_PATTERN, description="Only requests that named this cluster.")
    ] = None,
    actor: Annotated[
        str | None,
        Query(min_length=1, max_length=512, description="Only this caller (or user the MCP server acted for)."),
    ] = None,
    operationId: Annotated[
        str | None, Query(pattern=OPERATION_ID_PATTERN, description="Only requests about this operation.")
    ] = None,
    limit: Limit = DEFAULT_PAGE_SIZE,
    continue_: Continue = None,
) -> AuditList:
    refuse_unknown_parameters(router, "clusterTag", "actor", "operationId")
    query = AuditQuery(cluster_tag=clusterTag, actor=actor, operation_id=operationId)
    page = wiring.audit_trail().page(query, limit, continue_)
    return AuditList(entries=page.items, continue_=page.next_token)
