"""Step Functions Task "Record Stage Completed" (pipeline only): the registry shows a finished stage at once.

Input: `{"state": <execution state>, "stage": "eks" | "dependencies" | "hyperpod" | "storage"}`.
"""

from typing import Any

from controlplane import wiring
from controlplane.models.clusters import StageName
from controlplane.models.errors import OperationStateError
from controlplane.models.workflow import CreateClusterInput, parse_input


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    ctx = parse_input(event["state"])
    if not isinstance(ctx, CreateClusterInput):
        raise OperationStateError(f"Record Stage Completed does not run in a {ctx.kind.value} workflow.")
    wiring.clusters().record_stage(ctx, StageName(event["stage"]))
    return {"operationId": ctx.operationId, "stage": event["stage"]}
