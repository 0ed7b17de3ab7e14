"""Buying a training plan: offerings with their price, and a reservation only behind a plan that states its cost."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.confirmations import Confirmations
from controlplane.core.ports.account import TrainingPlan
from controlplane.core.ports.training_plans import PlanOffering, ReservedCapacity
from controlplane.core.training_plans import TrainingPlanService
from controlplane.models.errors import (
    ConfirmationRequiredError,
    TrainingPlanExistsError,
    TrainingPlanOfferingUnavailableError,
    UnknownRegionError,
)
from controlplane.models.training_plans import TRAINING_PLAN_INSTANCE_TYPES, CreateTrainingPlanRequest, OfferingSearch
from tests.fakes.account import InMemoryAccountGateway
from tests.fakes.persistence import FakeClock, InMemoryConfirmationStore
from tests.fakes.training_plans import InMemoryTrainingPlanMarket

ADMIN = Actor("alice", Role.ADMIN)
SEARCH = OfferingSearch(instanceType="ml.p5.48xlarge", instanceCount=2, durationHours=48)
START = datetime(2026, 12, 3, tzinfo=UTC)
OFFER = PlanOffering(
    "tpo-abc",
    "3072.00",
    "USD",
    48,
    (ReservedCapacity("ml.p5.48xlarge", 2, "us-west-2a", START, datetime(2026, 12, 5, tzinfo=UTC)),),
)
REQUEST = CreateTrainingPlanRequest(trainingPlanName="p5-week", trainingPlanOfferingId="tpo-abc", search=SEARCH)


class World:
    def __init__(self) -> None:
        self.account = InMemoryAccountGateway()
        self.market = InMemoryTrainingPlanMarket([OFFER])
        confirmations = Confirmations(InMemoryConfirmationStore(), FakeClock())
        self.service = TrainingPlanService(self.account, self.market, confirmations)


@pytest.fixture
def world() -> World:
    return World()


def test_search_shows_each_offering_with_its_price_and_capacity(world):
    found = world.service.search("us-west-2", SEARCH)
    (offering,) = found.offerings
    assert (offering.trainingPlanOfferingId, offering.upfrontFee, offering.currencyCode) == (
        "tpo-abc",
        "3072.00",
        "USD",
    )
    assert offering.reservedCapacity[0].availabilityZone == "us-west-2a"


def test_search_in_an_unknown_region_is_refused(world):
    with pytest.raises(UnknownRegionError):
        world.service.search("xx-nowhere-1", SEARCH)


def test_the_plan_states_the_cost_and_buys_nothing(world):
    plan = world.service.plan_create("us-west-2", REQUEST, ADMIN)
    assert plan.confirmationToken
    assert "3072.00 USD" in (plan.message or "")
    assert "upfront fee 3072.00 USD" in (plan.actions[0].detail or "")
    assert world.market.bought == {}


def test_the_confirmed_plan_buys_the_offering(world):
    token = world.service.plan_create("us-west-2", REQUEST, ADMIN).confirmationToken or ""
    created = world.service.create("us-west-2", REQUEST, token, ADMIN)
    assert created.trainingPlanArn.endswith(":training-plan/p5-week")
    assert (created.upfrontFee, world.market.bought) == ("3072.00", {"p5-week": "tpo-abc"})


def test_buying_without_a_token_is_refused(world):
    with pytest.raises(ConfirmationRequiredError):
        world.service.create("us-west-2", REQUEST, "", ADMIN)
    assert world.market.bought == {}


def test_an_offering_that_expired_after_the_plan_is_refused_with_search_again(world):
    token = world.service.plan_create("us-west-2", REQUEST, ADMIN).confirmationToken or ""
    world.market.offerings.clear()
    with pytest.raises(TrainingPlanOfferingUnavailableError, match="search again"):
        world.service.create("us-west-2", REQUEST, token, ADMIN)
    assert world.market.bought == {}


def test_an_unknown_offering_is_refused_with_search_again(world):
    unknown = REQUEST.model_copy(update={"trainingPlanOfferingId": "tpo-gone"})
    with pytest.raises(TrainingPlanOfferingUnavailableError, match="search again"):
        world.service.plan_create("us-west-2", unknown, ADMIN)


def test_a_plan_name_in_use_is_refused(world):
    world.account.plans.append(
        TrainingPlan(
            "arn:aws:sagemaker:us-west-2:123456789012:training-plan/p5-week", "p5-week", "Active", None, 1, None
        )
    )
    with pytest.raises(TrainingPlanExistsError):
        world.service.plan_create("us-west-2", REQUEST, ADMIN)


def test_search_refuses_a_type_training_plans_do_not_offer():
    with pytest.raises(ValueError, match="choose one of"):
        OfferingSearch(instanceType="ml.g6.4xlarge", instanceCount=1, durationHours=24)


def test_the_instance_types_are_botocores():
    import botocore.session

    model = botocore.session.get_session().get_service_model("sagemaker")
    shape = model.operation_model("SearchTrainingPlanOfferings").input_shape.members["InstanceType"]
    assert sorted(TRAINING_PLAN_INSTANCE_TYPES) == sorted(shape.enum)
