"""Planning an instance group against the Region's offerings, training plans and the type's capabilities."""

import pytest

from controlplane.core.hyperpod_planning import HyperPodPlanner, hyperpod_actions
from controlplane.core.ports.account import TrainingPlan
from controlplane.models.errors import InvalidRequestError
from controlplane.models.hyperpod import CreateHyperPodRequest, Taint
from tests.fakes.account import InMemoryAccountGateway
from tests.fakes.deployment import DEPLOYMENT

REGION = "us-west-2"
PLAN = TrainingPlan(
    arn="arn:aws:sagemaker:us-west-2:123456789012:training-plan/reserved",
    name="reserved",
    status="Active",
    instance_type="ml.p5.48xlarge",
    instance_count=2,
    availability_zone="us-west-2b",
)


def group(**fields):
    defaults = {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1}
    return CreateHyperPodRequest(**{**defaults, **fields})


@pytest.fixture
def account():
    return InMemoryAccountGateway(plans=[PLAN])


@pytest.fixture
def planner(account):
    return HyperPodPlanner(account)


def test_a_gpu_group_gets_deep_health_checks_and_the_types_threads_by_default(planner):
    resolved = planner.resolve_group(REGION, group())
    assert (resolved.availabilityZone, resolved.deepHealthChecks, resolved.threadsPerCore) == ("us-west-2c", True, 1)


def test_custom_taints_turn_the_deep_health_checks_default_off(planner):
    taint = Taint(key="team", value="a", effect="NoSchedule")
    assert planner.resolve_group(REGION, group(taints=[taint])).deepHealthChecks is False


def test_a_training_plans_zone_takes_precedence_and_its_limits_hold(planner):
    reserved = {"instanceType": "ml.p5.48xlarge", "trainingPlanArn": PLAN.arn, "capacityType": "training-plan"}
    assert planner.resolve_group(REGION, group(availabilityZone=None, **reserved)).availabilityZone == "us-west-2b"
    with pytest.raises(InvalidRequestError, match="its AZ takes precedence"):
        planner.resolve_group(REGION, group(**reserved))
    with pytest.raises(InvalidRequestError, match="reserves 2 instances"):
        planner.resolve_group(REGION, group(availabilityZone=None, instanceCount=3, **reserved))
    with pytest.raises(InvalidRequestError, match=r"reserves ml\.p5\.48xlarge, not ml\.g6\.4xlarge"):
        planner.resolve_group(REGION, group(trainingPlanArn=PLAN.arn, capacityType="training-plan"))


def test_an_unknown_training_plan_is_refused(planner):
    with pytest.raises(InvalidRequestError, match="Unknown training plan"):
        planner.resolve_group(REGION, group(trainingPlanArn=PLAN.arn + "x", capacityType="training-plan"))


def test_the_zone_must_be_in_the_region_and_offer_the_type(planner, account):
    with pytest.raises(InvalidRequestError, match="not in us-west-2"):
        planner.resolve_group(REGION, group(availabilityZone="us-east-1a"))
    account.offered["g6.4xlarge"] = ["us-west-2a"]
    with pytest.raises(InvalidRequestError, match="it is offered in: us-west-2a"):
        planner.resolve_group(REGION, group())
    account.offered["g6.4xlarge"] = []
    with pytest.raises(InvalidRequestError, match="nor anywhere in us-west-2"):
        planner.resolve_group(REGION, group())


def test_capabilities_the_type_lacks_are_refused_before_they_become_immutable(planner):
    with pytest.raises(InvalidRequestError, match="does not support them"):
        planner.resolve_group(REGION, group(instanceType="ml.m5.xlarge", deepHealthChecks=True))
    with pytest.raises(InvalidRequestError, match="more than one EFA card"):
        planner.resolve_group(REGION, group(networkInterface="efa-only"))
    with pytest.raises(InvalidRequestError, match="has no EFA interface"):
        planner.resolve_group(REGION, group(networkInterface="efa"))
    assert planner.resolve_group(REGION, group(instanceType="ml.p5.48xlarge", networkInterface="efa-only"))


def test_stage_four_creates_the_role_scripts_subnet_cluster_and_operator_identity(planner):
    actions = hyperpod_actions(DEPLOYMENT, "demo", planner.resolve_group(REGION, group()), "hp-cluster-demo")
    assert [action.resource for action in actions] == [
        "AWS::IAM::Role",
        "AWS::S3::Bucket",
        "AWS::EC2::Subnet",
        "AWS::SageMaker::Cluster",
        "AWS::EKS::PodIdentityAssociation",
    ]
    assert actions[3].detail.startswith("1 x ml.g6.4xlarge (on-demand) in us-west-2c")
