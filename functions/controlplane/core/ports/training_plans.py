"""SageMaker's training-plan market: the offerings a search finds, and reserving one (CreateTrainingPlan)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from controlplane.models.training_plans import OfferingSearch


@dataclass(frozen=True)
class ReservedCapacity:
    instance_type: str
    instance_count: int
    availability_zone: str
    start_time: datetime
    end_time: datetime


@dataclass(frozen=True)
class PlanOffering:
    offering_id: str
    upfront_fee: str
    currency_code: str
    duration_hours: int
    capacity: tuple[ReservedCapacity, ...]


class TrainingPlanMarket(Protocol):
    def search_offerings(self, region: str, search: OfferingSearch) -> list[PlanOffering]:
        """The HyperPod offerings SearchTrainingPlanOfferings finds for `search`."""

    def create_training_plan(self, region: str, name: str, offering_id: str) -> str:
        """Reserve the offering as a plan named `name`; its ARN. Raises TrainingPlanOfferingUnavailableError when
        the offering is unknown or expired, ConflictError when the name is taken."""
