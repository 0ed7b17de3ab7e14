"""SageMaker's training-plan market, in memory: offerings a test puts on sale (and withdraws), and the plans bought."""

from __future__ import annotations

from controlplane.core.ports.training_plans import PlanOffering
from controlplane.models.errors import TrainingPlanOfferingUnavailableError
from controlplane.models.training_plans import OfferingSearch
from tests.fakes.account import ACCOUNT_ID


class InMemoryTrainingPlanMarket:
    def __init__(self, offerings: list[PlanOffering] | None = None) -> None:
        self.offerings = list(offerings or [])
        self.bought: dict[str, str] = {}  # plan name → offering id
        self.searches: list[OfferingSearch] = []

    def search_offerings(self, region: str, search: OfferingSearch) -> list[PlanOffering]:
        self.searches.append(search)
        return [
            offering
            for offering in self.offerings
            if all(c.instance_type == search.instanceType for c in offering.capacity)
        ]

    def create_training_plan(self, region: str, name: str, offering_id: str) -> str:
        if offering_id not in {offering.offering_id for offering in self.offerings}:
            raise TrainingPlanOfferingUnavailableError(f"Offering {offering_id} is no longer offered; search again.")
        self.bought[name] = offering_id
        return f"arn:aws:sagemaker:{region}:{ACCOUNT_ID}:training-plan/{name}"
