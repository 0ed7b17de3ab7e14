"""SchedulerPolicyService against in-memory fakes: the first policy is created as asked, an equal one changes
nothing, and changing or deleting the live one needs its plan's token."""

from __future__ import annotations

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.governance.scheduler import SchedulerPolicyNotFoundError, SchedulerPolicyService
from controlplane.core.governance.teams import ClusterReader
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.models.errors import ConfirmationRequiredError
from controlplane.models.governance import SchedulerPolicyRequest
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.governance import InMemoryGovernanceGateway
from tests.unit.core.hyperpod.world import World

ADMIN = Actor("alice", Role.ADMIN)
HP = "hp-cluster-demo"


@pytest.fixture
def world() -> World:
    world = World()
    world.register()
    world.hyperpod.put_cluster(HP, (InstanceGroup("a", "ml.g5.xlarge", "InService", 2, 2),))
    world.governance = InMemoryGovernanceGateway()  # type: ignore[attr-defined]
    return world


def service(world: World) -> SchedulerPolicyService:
    return SchedulerPolicyService(
        ClusterReader(world.clusters, lambda region: world.hyperpod),
        world.confirmations,
        DEPLOYMENT,
        lambda region: world.governance,  # type: ignore[attr-defined]
    )


def policy(**weights: int) -> SchedulerPolicyRequest:
    return SchedulerPolicyRequest(priorityClasses=[{"name": name, "weight": w} for name, w in weights.items()])


def test_the_first_policy_is_created_without_a_token(world):
    assert service(world).plan_put("demo", policy(training=50), ADMIN).confirmationToken is None
    assert service(world).put("demo", policy(training=50), None, ADMIN).priorityClasses[0].name == "training"
    assert world.governance.schedulers[world.hyperpod.clusters[HP].arn].policy.priority_classes == (("training", 50),)


def test_an_equal_policy_changes_nothing(world):
    service(world).put("demo", policy(training=50), None, ADMIN)
    assert service(world).plan_put("demo", policy(training=50), ADMIN).actions == []
    assert service(world).put("demo", policy(training=50), None, ADMIN).version == 1


def test_changing_the_live_policy_is_refused_without_its_plans_token_then_done_with_it(world):
    service(world).put("demo", policy(training=50), None, ADMIN)
    with pytest.raises(ConfirmationRequiredError) as refused:
        service(world).put("demo", policy(training=50, inference=90), None, ADMIN)
    token = refused.value.details["confirmationToken"]
    updated = service(world).put("demo", policy(training=50, inference=90), token, ADMIN)
    assert ([p.name for p in updated.priorityClasses], updated.version) == (["training", "inference"], 2)


def test_deleting_needs_the_plans_token_and_a_missing_policy_is_not_found(world):
    with pytest.raises(SchedulerPolicyNotFoundError, match="PUT /clusters/demo/scheduler-policy"):
        service(world).plan_delete("demo", ADMIN)
    service(world).put("demo", policy(training=50), None, ADMIN)
    plan = service(world).plan_delete("demo", ADMIN)
    service(world).delete("demo", plan.confirmationToken, ADMIN)
    assert world.governance.schedulers == {}


def test_a_priority_class_named_twice_is_refused():
    with pytest.raises(ValueError, match="each name once"):
        SchedulerPolicyRequest(priorityClasses=[{"name": "a", "weight": 1}, {"name": "a", "weight": 2}])
