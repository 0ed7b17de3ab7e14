"""Training-plan offerings as SageMaker serves them to SearchTrainingPlanOfferings, deterministically, and reserving
one with CreateTrainingPlan.

A search for N instances of a type over D hours finds two offerings: in the Region's first AZ from the next whole
hour after the window's start (or now), and in its second AZ a day later; an offering ending after EndTimeBefore is
left out. An offering's id is a digest of what it reserves (the same search within the hour finds the same id, as
AWS's `tpo-<SHA-256>` ids do). An offering served is reservable for `OFFERING_TTL` seconds (AWS does not publish how
long; the sandbox picks a short time so a stale choice is refused as AWS refuses it); an unknown or expired id is
``ResourceNotFound``. Fees are the sandbox's own hourly rates, not AWS prices.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sandbox.aws.hyperpod.model import HyperPodError, JsonObject, validation

OFFERING_TTL = 600.0
HOUR = 3600.0
# Sandbox rates, USD per instance-hour (figures for trying the product, not AWS's prices).
HOURLY_RATES = {
    "ml.p4d.24xlarge": 20.0,
    "ml.p4de.24xlarge": 25.0,
    "ml.p5.4xlarge": 4.5,
    "ml.p5.48xlarge": 32.0,
    "ml.p5e.48xlarge": 36.0,
    "ml.p5en.48xlarge": 38.0,
    "ml.p6-b200.48xlarge": 60.0,
    "ml.p6-b300.48xlarge": 70.0,
    "ml.p6e-gb200.36xlarge": 80.0,
    "ml.trn1.32xlarge": 12.0,
    "ml.trn2.48xlarge": 30.0,
}


@dataclass(frozen=True)
class Offering:
    offering_id: str
    instance_type: str
    count: int
    zone: str
    start: float
    duration_hours: int

    @property
    def end(self) -> float:
        return self.start + self.duration_hours * HOUR

    @property
    def fee(self) -> str:
        return f"{HOURLY_RATES[self.instance_type] * self.count * self.duration_hours:.2f}"

    def wire(self, request: JsonObject) -> JsonObject:
        """The TrainingPlanOffering of SearchTrainingPlanOfferings' response."""
        offering: JsonObject = {
            "TrainingPlanOfferingId": self.offering_id,
            "TargetResources": list(request.get("TargetResources") or ["hyperpod-cluster"]),
            "DurationHours": self.duration_hours,
            "DurationMinutes": 0,
            "UpfrontFee": self.fee,
            "CurrencyCode": "USD",
            "ReservedCapacityOfferings": [
                {
                    "ReservedCapacityType": "Instance",
                    "InstanceType": self.instance_type,
                    "InstanceCount": self.count,
                    "AvailabilityZone": self.zone,
                    "DurationHours": self.duration_hours,
                    "DurationMinutes": 0,
                    "StartTime": self.start,
                    "EndTime": self.end,
                }
            ],
        }
        for key, wire in (("StartTimeAfter", "RequestedStartTimeAfter"), ("EndTimeBefore", "RequestedEndTimeBefore")):
            if request.get(key) is not None:
                offering[wire] = request[key]
        return offering


class OfferingBook:
    """The offerings served per (account, region), each reservable until it expires."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self._served: dict[tuple[str, str, str], tuple[Offering, float]] = {}

    def search(self, where: tuple[str, str], zones: list[str], request: JsonObject) -> list[Offering]:
        instance_type = request.get("InstanceType")
        if instance_type not in HOURLY_RATES:
            raise validation(f"InstanceType {instance_type} is not offered by training plans.")
        if "hyperpod-cluster" not in (request.get("TargetResources") or ["hyperpod-cluster"]):
            return []
        count, hours = int(request.get("InstanceCount") or 1), int(request.get("DurationHours") or 24)
        now = self._now()
        earliest = max(now, _epoch(request.get("StartTimeAfter")) or now)
        latest = _epoch(request.get("EndTimeBefore"))
        first = math.floor(earliest / HOUR) * HOUR + HOUR
        found = []
        for zone, start in zip(zones[:2], (first, first + 24 * HOUR), strict=False):
            offering = Offering(
                _offering_id(where, instance_type, count, zone, start, hours), instance_type, count, zone, start, hours
            )
            if latest is None or offering.end <= latest:
                found.append(offering)
                self._served[(*where, offering.offering_id)] = (offering, now + OFFERING_TTL)
        return found

    def take(self, where: tuple[str, str], offering_id: str) -> Offering:
        """The offering to reserve; ResourceNotFound when it was never served or has expired."""
        served = self._served.get((*where, offering_id))
        if served is None or served[1] < self._now():
            raise HyperPodError(
                "ResourceNotFound", f"Training plan offering {offering_id} not found or expired; search again."
            )
        return served[0]


def _offering_id(where: tuple[str, str], instance_type: str, count: int, zone: str, start: float, hours: int) -> str:
    digest = hashlib.sha256(f"{where}|{instance_type}|{count}|{zone}|{start}|{hours}".encode()).hexdigest()
    return f"tpo-{digest}"


def _epoch(moment: object) -> float | None:
    """A wire timestamp (epoch seconds, or ISO 8601 text) as epoch seconds."""
    if moment is None:
        return None
    if isinstance(moment, int | float):
        return float(moment)
    return datetime.fromisoformat(str(moment).replace("Z", "+00:00")).timestamp()
