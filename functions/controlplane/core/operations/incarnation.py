"""A cluster's incarnation: the id minted when its registry record is created (stage 1, the pipeline, import) and
carried by every operation on it and every workflow input. A cluster deleted and created again under the same tag is
another incarnation; an operation acts only on the one it was created for (its resume, cancel and steps refuse any
other), so an old operation can never reach a new cluster."""

from __future__ import annotations

import uuid

from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import StaleOperationError


def new_incarnation() -> str:
    return f"inc-{uuid.uuid4().hex[:16]}"


def require_current(
    operation_id: str, cluster_tag: str, incarnation: str, record: ClusterRecord | None
) -> ClusterRecord:
    """The record of the cluster incarnation `incarnation`; StaleOperationError when the cluster is gone or is another
    incarnation now."""
    if record is not None and record.incarnation == incarnation:
        return record
    details = {"operationIncarnation": incarnation, "clusterIncarnation": record.incarnation if record else None}
    if record is None:
        raise StaleOperationError(
            f"Operation {operation_id} was created for cluster '{cluster_tag}' (incarnation {incarnation}), which no "
            "longer exists: there is nothing left for it to act on. To build the cluster again, create it and start "
            "a new request.",
            details,
        )
    raise StaleOperationError(
        f"Operation {operation_id} was created for cluster '{cluster_tag}' incarnation {incarnation}; the cluster "
        f"was deleted and created again since, and is now incarnation {record.incarnation}. An operation acts only "
        "on the cluster it was created for: start a new request for the new cluster instead.",
        details,
    )
