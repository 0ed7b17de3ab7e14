"""Training-plan offerings as the sandbox's SageMaker serves them (boto3 against moto with the HyperPod extension):
deterministic, priced, expiring; a reserved offering becomes a plan ListTrainingPlans shows."""

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from sandbox.aws.hyperpod.extension import HyperPodExtension, MotoAccount
from sandbox.aws.hyperpod.kubernetes import HyperPodKubernetes
from sandbox.aws.hyperpod.offerings import OFFERING_TTL, OfferingBook
from sandbox.aws.hyperpod.simulation import HyperPodSimulation
from sandbox.k8s.emulator import KubernetesEmulator

REGION = "us-west-2"
NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z, a whole hour
SEARCH = {
    "InstanceType": "ml.p5.48xlarge",
    "InstanceCount": 2,
    "DurationHours": 48,
    "TargetResources": ["hyperpod-cluster"],
}


class Clock:
    def __init__(self) -> None:
        self.now = NOW + 60

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def world() -> Iterator[tuple[Any, Clock]]:
    clock = Clock()
    with mock_aws():
        simulation = HyperPodSimulation(HyperPodKubernetes(KubernetesEmulator()), MotoAccount())
        simulation.offerings = OfferingBook(now=clock)
        extension = HyperPodExtension(simulation)
        extension.install()
        try:
            yield boto3.client("sagemaker", region_name=REGION), clock
        finally:
            extension.uninstall()


def test_a_search_finds_two_priced_offerings_from_the_next_hour(world) -> None:
    sagemaker, _ = world
    offerings = sagemaker.search_training_plan_offerings(**SEARCH)["TrainingPlanOfferings"]
    assert [o["UpfrontFee"] for o in offerings] == ["3072.00", "3072.00"]
    capacity = [o["ReservedCapacityOfferings"][0] for o in offerings]
    assert [c["AvailabilityZone"] for c in capacity] == [f"{REGION}a", f"{REGION}b"]
    assert [c["StartTime"].timestamp() for c in capacity] == [NOW + 3600, NOW + 3600 + 86400]
    again = sagemaker.search_training_plan_offerings(**SEARCH)["TrainingPlanOfferings"]
    assert [o["TrainingPlanOfferingId"] for o in again] == [o["TrainingPlanOfferingId"] for o in offerings]


def test_an_offering_ending_after_the_window_is_left_out(world) -> None:
    sagemaker, _ = world
    window = {"EndTimeBefore": NOW + 3600 + 48 * 3600}
    offerings = sagemaker.search_training_plan_offerings(**SEARCH, **window)["TrainingPlanOfferings"]
    assert [o["ReservedCapacityOfferings"][0]["AvailabilityZone"] for o in offerings] == [f"{REGION}a"]


def test_a_reserved_offering_is_listed_as_a_scheduled_plan(world) -> None:
    sagemaker, _ = world
    offering = sagemaker.search_training_plan_offerings(**SEARCH)["TrainingPlanOfferings"][0]
    arn = sagemaker.create_training_plan(
        TrainingPlanName="p5-week", TrainingPlanOfferingId=offering["TrainingPlanOfferingId"]
    )["TrainingPlanArn"]
    (plan,) = sagemaker.list_training_plans()["TrainingPlanSummaries"]
    assert (plan["TrainingPlanArn"], plan["UpfrontFee"], plan["TotalInstanceCount"]) == (arn, "3072.00", 2)
    assert plan["ReservedCapacitySummaries"][0]["AvailabilityZone"] == f"{REGION}a"
    with pytest.raises(ClientError) as taken:
        sagemaker.create_training_plan(
            TrainingPlanName="p5-week", TrainingPlanOfferingId=offering["TrainingPlanOfferingId"]
        )
    assert taken.value.response["Error"]["Code"] == "ResourceInUse"


def test_an_expired_or_unknown_offering_is_not_found(world) -> None:
    sagemaker, clock = world
    offering = sagemaker.search_training_plan_offerings(**SEARCH)["TrainingPlanOfferings"][0]
    clock.now += OFFERING_TTL + 1
    for offering_id in (offering["TrainingPlanOfferingId"], "tpo-unknown"):
        with pytest.raises(ClientError) as refused:
            sagemaker.create_training_plan(TrainingPlanName="late", TrainingPlanOfferingId=offering_id)
        assert refused.value.response["Error"]["Code"] == "ResourceNotFound"
    assert sagemaker.list_training_plans()["TrainingPlanSummaries"] == []
