"""Step Functions Task "Record Operation Success": the operation SUCCEEDED; the registry reflects it."""

from typing import Any

from controlplane import wiring
from controlplane.models.workflow import parse_input


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    ctx = parse_input(event)
    operation = wiring.operations().succeed(ctx.operationId)
    wiring.clusters().record_outcome(operation)
    return {"operationId": operation.operationId, "status": operation.status.value}
