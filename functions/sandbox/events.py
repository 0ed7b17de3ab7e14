"""EventBridge in the sandbox: the simulated HyperPod's events routed to the real events handler.

moto's EventBridge cannot deliver to Lambda targets, so the router plays the home Region's default bus: it matches
each event against the same patterns the CDK rules are made of (`controlplane.adapters.aws.eventbridge.PATTERNS`,
with moto's pattern matcher) and invokes `events.hyperpod.lambda_handler` for a match. HyperPod sends a cluster's
events to the default bus of the cluster's Region, and the stack's rules exist in its own Region only: an event
from another Region reaches the handler only through an enabled rule on that Region's default bus (in moto) that
matches it and targets the home bus with a role EventBridge can assume (EventBridge user guide, "Sending and
receiving events between AWS Regions"; a cross-Region bus target needs an execution role). One thread does it,
outside the simulation's lock, and also moves simulated time on (`HyperPodSimulation.advance`) so that a
transition happens, and its event is sent, when it comes due rather than when someone next reads the cluster.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from typing import Any, cast

from moto.events.models import EventPattern, events_backends
from moto.events.utils import EventMessageType
from moto.iam.models import iam_backends

from controlplane.adapters.aws.eventbridge import PATTERNS
from events.hyperpod import lambda_handler as hyperpod_events
from sandbox.aws.hyperpod.simulation import HyperPodSimulation

TICK_SECONDS = 0.05
log = logging.getLogger(__name__)


class LambdaContext:
    function_name = "instantstart-events"
    aws_request_id = "sandbox"


class EventRouter:
    def __init__(self, hyperpod: HyperPodSimulation, account: str, home_region: str) -> None:
        self._hyperpod = hyperpod
        self._account = account
        self._home_region = home_region
        self._home_bus = f"arn:aws:events:{home_region}:{account}:event-bus/default"
        self._patterns = [EventPattern.load(json.dumps(pattern)) for pattern in PATTERNS.values()]
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.timeline: list[tuple[float, dict[str, Any], dict[str, Any]]] = []
        """Each event delivered: when (`time.monotonic`), the event, what the handler returned (tests read it)."""

    def install(self) -> None:
        self._hyperpod.on_event(self._queue.put)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="sandbox-eventbridge", daemon=True)
        self._thread.start()

    def uninstall(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def send(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """Deliver one event now, as the buses would (None when it never reaches a home rule that matches it)."""
        message = cast(EventMessageType, event)
        if not self._reaches_home(event) or not any(pattern.matches_event(message) for pattern in self._patterns):
            return None
        result = hyperpod_events(event, LambdaContext())
        self.timeline.append((time.monotonic(), event, result))
        return result

    def _reaches_home(self, event: dict[str, Any]) -> bool:
        """On the home bus already, or forwarded there by a rule of the event's Region."""
        region = str(event.get("region", ""))
        if region == self._home_region:
            return True
        bus = events_backends[self._account][region].event_buses.get("default")
        roles = {role.arn for role in iam_backends[self._account]["global"].roles.values()}
        return bus is not None and any(
            rule.state == "ENABLED"
            and rule.event_pattern.matches_event(cast(EventMessageType, event))
            and any(target["Arn"] == self._home_bus and target.get("RoleArn") in roles for target in rule.targets)
            for rule in list(bus.rules.values())
        )

    @property
    def delivered(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        return [(event, result) for _, event, result in self.timeline]

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._hyperpod.advance()
                while True:
                    self.send(self._queue.get_nowait())
            except queue.Empty:
                pass
            except Exception:
                log.exception("event delivery failed")
            self._stop.wait(TICK_SECONDS)
