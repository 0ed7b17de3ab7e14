"""The path and query parameters several routers share, declared once: the cluster tag, a node's id, a Region,
the `dryRun` and `confirmationToken` of the routes that plan before they act, and the `timeoutSeconds` of the long
polls (with the OpenAPI extensions that tell the MCP server when a workload's wait is done, and which tool waits for
a workload a route creates).

A parameter one router alone takes is declared in that router; paging's are in `paging`.
"""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from pydantic import AfterValidator

from controlplane.models.common import (
    CLUSTER_TAG_PATTERN,
    CLUSTER_TAG_RULE,
    NODE_ID_PATTERN,
    REGION_PATTERN,
    instance_id,
)
from controlplane.models.operations import LONG_POLL_EXTENSION, MAX_WAIT_SECONDS, WAITED_BY_EXTENSION

ClusterTagPath = Annotated[str, Path(pattern=CLUSTER_TAG_PATTERN, description=f"Cluster tag ({CLUSTER_TAG_RULE}).")]
NodeIdPath = Annotated[
    str,
    Path(pattern=NODE_ID_PATTERN, description="EC2 id (i-…) or node name (hyperpod-i-…)."),
    AfterValidator(instance_id),
]
RegionPath = Annotated[str, Path(pattern=REGION_PATTERN, description="e.g. us-west-2.")]
DryRun = Annotated[bool, Query(description="Return the planned actions without doing anything.")]
ConfirmationToken = Annotated[str | None, Query(description="Token from a prior plan.")]
WaitSeconds = Annotated[
    int,
    Query(ge=0, le=MAX_WAIT_SECONDS, description="Seconds to wait at most; the answer comes as soon as it is done."),
]
# A workload's long poll is done when its answer's `done` is true.
WORKLOAD_LONG_POLL = {LONG_POLL_EXTENSION: {"field": "done", "values": [True]}}


def waited_by(tool: str) -> dict[str, str]:
    """The extension of a route that creates a workload `tool` waits for."""
    return {WAITED_BY_EXTENSION: tool}
