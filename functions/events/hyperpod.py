"""The HyperPod events entry point: one EventBridge event (the rules' patterns are
`controlplane.adapters.aws.eventbridge.PATTERNS`) parsed, handed to `EventService.handle`, counted.

Metrics (Powertools, namespace InstantStart): `EventsHandled` by kind and by what came of it (recorded,
out-of-order, duplicate, not-ours), `RemediationActions` by outcome. An event that is not HyperPod's is logged and
dropped: EventBridge would only deliver it again.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit, single_metric

from controlplane import wiring
from controlplane.adapters.aws.eventbridge import NotAHyperPodEventError, parse
from controlplane.observability import logger

NAMESPACE = "InstantStart"


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    try:
        hyperpod_event = parse(event)
    except NotAHyperPodEventError as error:
        logger().warning("event dropped", extra={"reason": str(error), "eventId": event.get("id")})
        return {"handled": "dropped"}
    outcome = wiring.events().handle(hyperpod_event)
    _count("EventsHandled", {"kind": hyperpod_event.kind, "handled": outcome.handled})
    result: dict[str, Any] = {"handled": outcome.handled, "woken": outcome.woken}
    if outcome.remediation is not None:
        _count(
            "RemediationActions",
            {"outcome": outcome.remediation.outcome or "", "action": outcome.remediation.action or ""},
        )
        result["remediation"] = outcome.remediation.model_dump(mode="json", exclude_none=True)
    logger().info("hyperpod event", extra={"eventId": hyperpod_event.eventId, **result})
    return result


def _count(name: str, dimensions: dict[str, str]) -> None:
    with single_metric(name=name, unit=MetricUnit.Count, value=1, namespace=NAMESPACE) as metric:
        for key, value in dimensions.items():
            metric.add_dimension(name=key, value=value)
