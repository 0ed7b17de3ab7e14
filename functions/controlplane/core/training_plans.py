"""Buying reserved capacity: search SageMaker's training-plan offerings, and reserve one behind plan → confirm.

The plan searches again (an offering is only worth reserving while it is still offered) and states the upfront fee;
its token is bound to that offering and fee, so a confirmation never buys at a price the person did not see. Listing
the account's plans, and using one for an instance group, are the catalog's and the instance groups'.
"""

from __future__ import annotations

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations, fingerprint
from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.training_plans import PlanOffering, TrainingPlanMarket
from controlplane.models.clusters import Plan, PlannedAction
from controlplane.models.errors import (
    TrainingPlanExistsError,
    TrainingPlanOfferingUnavailableError,
    UnknownRegionError,
)
from controlplane.models.training_plans import (
    CreateTrainingPlanRequest,
    OfferingSearch,
    ReservedCapacityView,
    TrainingPlanCreated,
    TrainingPlanOfferingList,
    TrainingPlanOfferingView,
)

ACTION = "create-training-plan"
REPLAN = "Send the same request without confirmationToken"


class TrainingPlanService:
    def __init__(self, account: AccountGateway, market: TrainingPlanMarket, confirmations: Confirmations) -> None:
        self._account = account
        self._market = market
        self._confirmations = confirmations

    def search(self, region: str, search: OfferingSearch) -> TrainingPlanOfferingList:
        self._known(region)
        offerings = self._market.search_offerings(region, search)
        return TrainingPlanOfferingList(region=region, search=search, offerings=[_view(o) for o in offerings])

    def plan_create(self, region: str, request: CreateTrainingPlanRequest, actor: Actor) -> Plan:
        """The reservation and its price, with a token bound to this offering at this price; nothing is bought."""
        offering = self._offered(region, request)
        view = _view(offering)
        token, expires_at = self._confirmations.issue(actor, ACTION, _target(region, request), fingerprint([view]))
        name = request.trainingPlanName
        reserve = PlannedAction(action="create", resource="TrainingPlan", name=name, detail=_cost(view))
        return Plan(
            actions=[reserve],
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Reserving {request.trainingPlanName} costs {view.upfrontFee} {view.currencyCode} up front and "
            "cannot be undone. Ask the person to confirm this price, then repeat the request with confirmationToken.",
        )

    def create(self, region: str, request: CreateTrainingPlanRequest, token: str, actor: Actor) -> TrainingPlanCreated:
        """Buy the offering the token's plan priced (still offered, at that price)."""
        view = _view(self._offered(region, request))
        target = _target(region, request)
        with self._confirmations.redeeming(token, actor, ACTION, target, REPLAN, fingerprint([view])):
            arn = self._market.create_training_plan(region, request.trainingPlanName, request.trainingPlanOfferingId)
        return TrainingPlanCreated(
            trainingPlanArn=arn,
            trainingPlanName=request.trainingPlanName,
            upfrontFee=view.upfrontFee,
            currencyCode=view.currencyCode,
        )

    def _offered(self, region: str, request: CreateTrainingPlanRequest) -> PlanOffering:
        self._known(region)
        if any(plan.name == request.trainingPlanName for plan in self._account.training_plans(region)):
            raise TrainingPlanExistsError(
                f"A training plan named {request.trainingPlanName} exists in {region}; choose another trainingPlanName."
            )
        for offering in self._market.search_offerings(region, request.search):
            if offering.offering_id == request.trainingPlanOfferingId:
                return offering
        raise TrainingPlanOfferingUnavailableError(
            f"Offering {request.trainingPlanOfferingId} is not offered for this search (offerings expire); search "
            "again (training_plan_search_offerings) and choose a current offering.",
            {"trainingPlanOfferingId": request.trainingPlanOfferingId},
        )

    def _known(self, region: str) -> None:
        if region not in self._account.known_regions():
            raise UnknownRegionError(f"Unknown or unsupported region '{region}'; GET /regions lists the Regions.")


def _target(region: str, request: CreateTrainingPlanRequest) -> str:
    return f"{region}/{request.trainingPlanName}/{request.trainingPlanOfferingId}"


def _cost(view: TrainingPlanOfferingView) -> str:
    where = "; ".join(
        f"{c.instanceCount} x {c.instanceType} in {c.availabilityZone} from {c.startTime.isoformat()} to "
        f"{c.endTime.isoformat()}"
        for c in view.reservedCapacity
    )
    return f"{where}; {view.durationHours} h; upfront fee {view.upfrontFee} {view.currencyCode}"


def _view(offering: PlanOffering) -> TrainingPlanOfferingView:
    return TrainingPlanOfferingView(
        trainingPlanOfferingId=offering.offering_id,
        upfrontFee=offering.upfront_fee,
        currencyCode=offering.currency_code,
        durationHours=offering.duration_hours,
        reservedCapacity=[
            ReservedCapacityView(
                instanceType=c.instance_type,
                instanceCount=c.instance_count,
                availabilityZone=c.availability_zone,
                startTime=c.start_time,
                endTime=c.end_time,
            )
            for c in offering.capacity
        ],
    )
