"""VPC CIDR reservation at accept time, and delete tokens that only their own request consumes, bound to the plan
they confirm (issue 11, items 3 and 6)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.ports.persistence import ClusterLock
from controlplane.models.clusters import ClusterStatus, CreateEksClusterRequest
from controlplane.models.errors import CidrConflictError, ClusterBusyError, ConfirmationRequiredError
from controlplane.models.operations import OperationKind, OperationStatus

ADMIN = Actor("alice", Role.ADMIN)
OTHER_ADMIN = Actor("bob", Role.ADMIN)
REGION = "us-west-2"


def eks(tag: str, cidr: str | None = None) -> CreateEksClusterRequest:
    return CreateEksClusterRequest(clusterTag=tag, region=REGION, vpcCidr=cidr)


def test_six_concurrent_creates_without_a_cidr_get_six_different_cidrs(lifecycle, registry):
    tags = [f"team-{index}" for index in range(6)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda tag: lifecycle.create_eks(eks(tag), ADMIN), tags))
    cidrs = [registry.find(tag).vpcCidr for tag in tags]
    assert len(set(cidrs)) == 6
    assert registry.reserved_cidrs(REGION) == dict(zip(cidrs, tags, strict=True))


def test_a_cidr_reserved_by_a_cluster_being_created_is_refused_to_another(lifecycle):
    lifecycle.create_eks(eks("alpha", "10.70.0.0/16"), ADMIN)
    with pytest.raises(CidrConflictError, match="reserved for cluster 'alpha'"):
        lifecycle.create_eks(eks("beta", "10.70.0.0/16"), ADMIN)
    assert lifecycle.plan_create_eks(eks("beta")).actions[0].detail.startswith("10.9")


def test_a_create_that_cannot_start_frees_its_cidr(lifecycle, registry, launcher):
    launcher.fail_with = RuntimeError("no state machine")
    with pytest.raises(RuntimeError):
        lifecycle.create_eks(eks("alpha"), ADMIN)
    assert registry.reserved_cidrs(REGION) == {}


def test_a_deleted_cluster_frees_its_cidr(lifecycle, registry, clusters, operations):
    created = lifecycle.create_eks(eks("alpha"), ADMIN)
    clusters.record_outcome(operations.succeed(created.operationId))
    token = lifecycle.plan_delete("alpha", ADMIN).confirmationToken
    deleting = lifecycle.delete("alpha", token, ADMIN)
    assert registry.reserved_cidrs(REGION) != {}
    clusters.record_outcome(operations.succeed(deleting.operationId))
    assert registry.find("alpha") is None
    assert registry.reserved_cidrs(REGION) == {}


def test_a_refused_attempt_on_a_busy_cluster_keeps_the_owners_token(lifecycle, registry, clock, make_record):
    registry.create(make_record("eks"))
    token = lifecycle.plan_delete("demo", ADMIN).confirmationToken
    registry.acquire("demo", ClusterLock("op-running", 1, clock.now()))
    with pytest.raises(ClusterBusyError):
        lifecycle.delete("demo", token, ADMIN)
    registry.release("demo", "op-running", 1)
    assert lifecycle.delete("demo", token, ADMIN).kind == OperationKind.DELETE_EKS_CLUSTER


def test_a_token_presented_for_another_cluster_or_by_another_caller_stays_with_its_owner(
    lifecycle, registry, make_record
):
    registry.create(make_record("eks"))
    registry.create(make_record("eks", clusterTag="other"))
    token = lifecycle.plan_delete("demo", ADMIN).confirmationToken
    with pytest.raises(ConfirmationRequiredError):
        lifecycle.delete("other", token, ADMIN)
    with pytest.raises(ConfirmationRequiredError):
        lifecycle.delete("demo", token, OTHER_ADMIN)
    assert lifecycle.delete("demo", token, ADMIN).status == OperationStatus.PENDING


def test_a_plan_made_before_stage_three_does_not_authorize_a_delete_after_it(lifecycle, registry, make_record):
    registry.create(make_record("eks"))
    token = lifecycle.plan_delete("demo", ADMIN).confirmationToken
    registry.save(registry.find("demo").model_copy(update={"stagesDone": ["eks", "dependencies"]}))
    with pytest.raises(ConfirmationRequiredError, match="state that has changed"):
        lifecycle.delete("demo", token, ADMIN)
    fresh = lifecycle.plan_delete("demo", ADMIN)
    assert any(action.resource == "AWS::IAM::OIDCProvider" for action in fresh.actions)
    assert lifecycle.delete("demo", fresh.confirmationToken, ADMIN).kind == OperationKind.DELETE_EKS_CLUSTER


def test_a_delete_token_of_a_cluster_still_being_created_does_not_delete_it_once_created(
    lifecycle, registry, clusters, operations
):
    """Issue 29, finding 3: the plan listed a cluster being created; the finished cluster needs a plan of its own."""
    created = lifecycle.create_eks(eks("alpha"), ADMIN)
    token = lifecycle.plan_delete("alpha", ADMIN).confirmationToken
    clusters.record_outcome(operations.succeed(created.operationId))
    with pytest.raises(ConfirmationRequiredError, match="changed since"):
        lifecycle.delete("alpha", token, ADMIN)
    assert registry.find("alpha").status == ClusterStatus.ACTIVE


def test_a_delete_token_confirms_one_incarnation_of_a_tag(lifecycle, registry, make_record):
    registry.create(make_record("eks"))
    token = lifecycle.plan_delete("demo", ADMIN).confirmationToken
    registry.delete("demo")
    registry.create(make_record("eks", incarnation="inc-new"))
    with pytest.raises(ConfirmationRequiredError):
        lifecycle.delete("demo", token, ADMIN)


def test_a_delete_started_with_a_token_is_destructive_and_bound_to_its_incarnation(lifecycle, registry, make_record):
    registry.create(make_record("eks"))
    operation = lifecycle.delete("demo", lifecycle.plan_delete("demo", ADMIN).confirmationToken, ADMIN)
    assert (operation.destructive, operation.incarnation) == (True, "inc-demo")
    assert lifecycle.recheck(registry.find("demo"), operation).actions[-1].detail.startswith("incarnation inc-demo")
