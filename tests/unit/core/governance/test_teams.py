"""TeamService against in-memory fakes: a team's compute quota is created only with task governance enabled, for a
new team, on the cluster's instance types and within its capacity; it is deleted only with its plan's token."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from pydantic import ValidationError

from controlplane.core.auth import Actor, Role
from controlplane.core.governance.capacity import QuotaExceedsCapacityError
from controlplane.core.governance.namespace import TeamNamespaces
from controlplane.core.governance.queues import TeamQueueReader
from controlplane.core.governance.teams import (
    ClusterReader,
    TeamExistsError,
    TeamNotFoundError,
    TeamService,
)
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.core.ports.queues import ClusterQueueUse, KueueReadRefusedError, QueuedWorkload, ResourceUse
from controlplane.models.errors import (
    ClusterBusyError,
    ConfirmationRequiredError,
    ConflictError,
    DependencyFailedError,
    FeatureNotEnabledError,
    OperationStateError,
    WorkflowStartRefusedError,
)
from controlplane.models.governance import CreateTeamQuotaRequest, UpdateTeamQuotaRequest
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.governance import InMemoryGovernanceGateway
from tests.fakes.queues import InMemoryKueueGateway
from tests.unit.core.hyperpod.world import EKS_NAME, World

ADMIN = Actor("alice", Role.ADMIN)
HP = "hp-cluster-demo"
G5 = "ml.g5.xlarge"


def group(name: str, count: int, instance_type: str = G5) -> InstanceGroup:
    return InstanceGroup(name, instance_type, "InService", count, count)


@pytest.fixture
def world() -> World:
    world = World()
    world.register()
    world.hyperpod.put_cluster(HP, (group("a", 2), group("b", 2), group("cpu", 1, "ml.m5.xlarge")))
    world.eks.add_cluster(EKS_NAME)
    world.eks.add_addon(EKS_NAME, "amazon-sagemaker-hyperpod-taskgovernance")
    world.governance = InMemoryGovernanceGateway()  # type: ignore[attr-defined]
    world.kueue = InMemoryKueueGateway()  # type: ignore[attr-defined]
    return world


def teams(world: World) -> TeamService:
    return TeamService(
        ClusterReader(world.clusters, lambda region: world.hyperpod),
        world.confirmations,
        DEPLOYMENT,
        lambda region: world.governance,  # type: ignore[attr-defined]
        lambda region: world.eks,
        TeamNamespaces(world.operations, lambda region: world.eks, world.kubernetes, DEPLOYMENT),
        TeamQueueReader(lambda region: world.eks, world.kueue),  # type: ignore[attr-defined]
    )


def request(team: str = "ml-a", count: int = 2, instance_type: str = G5) -> CreateTeamQuotaRequest:
    return CreateTeamQuotaRequest(team=team, allocations=[{"instanceType": instance_type, "count": count}])


def created(world, team: str, count: int) -> None:
    """The team created, with its namespace operation ended (the cluster free for the next one)."""
    operation = teams(world).create("demo", request(team, count), ADMIN).namespaceOperationId
    world.operations.succeed(operation)


def test_a_team_is_created_with_its_namespace_and_queue_and_counted_against_capacity(world):
    created = teams(world).create("demo", request(), ADMIN)
    assert (created.namespace, created.localQueue) == ("hyperpod-ns-ml-a", "hyperpod-ns-ml-a-localqueue")
    view = teams(world).teams("demo")
    assert [team.team for team in view.teams] == ["ml-a"]
    assert (view.capacity, view.allocated) == ({G5: 4, "ml.m5.xlarge": 1}, {G5: 2})
    assert world.governance.tags[created.quotaId]["instantstart:cluster"] == "demo"


def test_quotas_over_the_clusters_capacity_are_refused_and_nothing_is_created(world):
    teams(world).create("demo", request("ml-a", 3), ADMIN)
    with pytest.raises(QuotaExceedsCapacityError, match="at most 1") as error:
        teams(world).create("demo", request("ml-b", 2), ADMIN)
    assert error.value.status == 400
    assert [team.team for team in teams(world).teams("demo").teams] == ["ml-a"]


def test_an_instance_type_the_cluster_lacks_is_refused_naming_its_types(world):
    with pytest.raises(QuotaExceedsCapacityError, match=r"no ml\.p5\.48xlarge instances.*ml\.g5\.xlarge, ml\.m5"):
        teams(world).create("demo", request(instance_type="ml.p5.48xlarge"), ADMIN)


def test_a_team_with_a_quota_already_is_a_conflict(world):
    teams(world).create("demo", request(count=1), ADMIN)
    with pytest.raises(TeamExistsError, match="already has a compute quota"):
        teams(world).create("demo", request(count=1), ADMIN)


def test_quotas_need_task_governance_enabled(world):
    del world.eks.addons[(EKS_NAME, "amazon-sagemaker-hyperpod-taskgovernance")]
    with pytest.raises(FeatureNotEnabledError, match=re.escape('"taskGovernance": {"enabled": true}')) as refused:
        teams(world).create("demo", request(), ADMIN)
    assert "its add-on is not installed" in refused.value.message


@pytest.mark.parametrize("status", ["CREATING", "DEGRADED", "CREATE_FAILED"])
def test_quotas_need_task_governances_add_on_active(world, status):
    world.eks.add_addon(EKS_NAME, "amazon-sagemaker-hyperpod-taskgovernance", status=status)
    with pytest.raises(FeatureNotEnabledError, match=f"its add-on is {status}, not ACTIVE") as refused:
        teams(world).create("demo", request(), ADMIN)
    assert refused.value.details == {"feature": "taskGovernance"}
    assert world.operations.list_for_cluster("demo").items == []


def test_a_team_name_kueue_cannot_use_is_refused():
    with pytest.raises(ValidationError):
        request(team="ML_A")


def test_deleting_a_team_is_planned_then_confirmed_and_removes_its_namespace_copies(world):
    created = teams(world).create("demo", request(), ADMIN)
    world.operations.succeed(created.namespaceOperationId)
    plan = teams(world).plan_delete("demo", "ml-a", ADMIN)
    assert plan.confirmationToken and plan.actions[0].action == "delete"
    with pytest.raises(ConfirmationRequiredError):
        teams(world).delete("demo", "ml-a", "not-the-token", ADMIN)
    deleted = teams(world).delete("demo", "ml-a", plan.confirmationToken, ADMIN)
    assert deleted.status == "Deleting"
    assert world.operations.get(deleted.namespaceOperationId).kind == "remove_team_namespace"
    assert teams(world).teams("demo").teams == []


def test_deleting_a_team_while_another_operation_holds_the_cluster_is_refused_with_the_quota_kept(world):
    teams(world).create("demo", request(), ADMIN)  # its namespace preparation still runs
    plan = teams(world).plan_delete("demo", "ml-a", ADMIN)
    with pytest.raises(ClusterBusyError, match="Team 'ml-a' was not deleted: the cluster is busy with operation"):
        teams(world).delete("demo", "ml-a", plan.confirmationToken, ADMIN)
    assert [team.team for team in teams(world).teams("demo").teams] == ["ml-a"]


def test_a_team_whose_removal_step_functions_refuses_keeps_its_quota_and_its_token_for_the_repeat(world):
    created(world, "ml-a", 1)
    plan = teams(world).plan_delete("demo", "ml-a", ADMIN)
    world.launcher.fail_with = WorkflowStartRefusedError("Refused for now.", {"refusal": "ThrottlingException"})
    with pytest.raises(WorkflowStartRefusedError, match=r"not deleted: .*\(ThrottlingException\)\. Repeat DELETE"):
        teams(world).delete("demo", "ml-a", plan.confirmationToken, ADMIN)
    assert [team.team for team in teams(world).teams("demo").teams] == ["ml-a"]
    world.launcher.fail_with = None
    assert teams(world).delete("demo", "ml-a", plan.confirmationToken, ADMIN).status == "Deleting"


def test_an_unknown_team_is_not_found_naming_the_known_ones(world):
    teams(world).create("demo", request(), ADMIN)
    with pytest.raises(TeamNotFoundError, match=r"teams: ml-a\); create it with POST /clusters/demo/teams") as error:
        teams(world).plan_delete("demo", "ml-z", ADMIN)
    assert error.value.status == 404


def test_a_quota_change_is_planned_checked_against_the_other_teams_and_confirmed(world):
    created(world, "ml-a", 2)
    created(world, "ml-b", 1)
    with pytest.raises(QuotaExceedsCapacityError, match="1 already guaranteed to other teams, so at most 3"):
        teams(world).plan_update(
            "demo", "ml-a", UpdateTeamQuotaRequest(allocations=[{"instanceType": G5, "count": 4}]), ADMIN
        )
    change = UpdateTeamQuotaRequest(allocations=[{"instanceType": G5, "count": 3}], active=False)
    plan = teams(world).plan_update("demo", "ml-a", change, ADMIN)
    with pytest.raises(ConfirmationRequiredError):
        teams(world).update("demo", "ml-a", change, "not-the-token", ADMIN)
    updated = teams(world).update("demo", "ml-a", change, plan.confirmationToken, ADMIN)
    assert (updated.allocations[0].count, updated.active, updated.sharing) == (3, False, "LendAndBorrow")
    assert teams(world).teams("demo").allocated == {G5: 4}


def test_a_quota_change_names_something_to_change():
    with pytest.raises(ValidationError, match="at least one field"):
        UpdateTeamQuotaRequest()


def test_creating_a_team_starts_its_namespace_preparation(world):
    team = teams(world).create("demo", request("ml-a", 1), ADMIN)
    assert team.namespaceOperationId is not None
    assert world.operations.get(team.namespaceOperationId).kind == "prepare_team_namespace"


def test_a_team_created_while_another_operation_holds_the_cluster_is_refused_and_nothing_is_created(world):
    running = teams(world).create("demo", request("ml-a", 1), ADMIN).namespaceOperationId
    busy_with = rf"Team 'ml-b' was not created: .*busy with operation {running}"
    with pytest.raises(ClusterBusyError, match=busy_with) as busy:
        teams(world).create("demo", request("ml-b", 1), ADMIN)
    assert busy.value.status == 409
    assert "then repeat POST /clusters/demo/teams." in busy.value.message
    assert [team.team for team in teams(world).teams("demo").teams] == ["ml-a"]


def test_a_team_whose_namespace_operation_step_functions_refuses_is_a_retryable_503_with_nothing_created(world):
    world.launcher.fail_with = WorkflowStartRefusedError(
        "Step Functions refused to start the prepare_team_namespace workflow for now (ExecutionLimitExceeded).",
        {"refusal": "ExecutionLimitExceeded"},
    )
    with pytest.raises(WorkflowStartRefusedError, match=r"Team 'ml-a' was not created: .*Repeat POST") as refused:
        teams(world).create("demo", request("ml-a", 1), ADMIN)
    assert (refused.value.status, refused.value.retry_after) == (503, 30)
    assert world.governance.quotas(world.hyperpod.clusters[HP].arn) == []
    failed = world.operations.get(refused.value.details["operationId"])
    assert (failed.status, failed.error.code) == ("FAILED", "WorkflowStartFailed")
    assert world.registry.find("demo").activeOperationId is None
    world.launcher.fail_with = None
    assert teams(world).create("demo", request("ml-a", 1), ADMIN).team == "ml-a"


def test_a_quota_sagemaker_refuses_cancels_the_namespace_operation_it_waited_on(world):
    world.governance.fail_create = ConflictError("ConflictException: a quota for this namespace exists")
    with pytest.raises(ConflictError, match="ConflictException"):
        teams(world).create("demo", request("ml-a", 1), ADMIN)
    (operation,) = world.operations.list_for_cluster("demo").items
    assert operation.status == "CANCELLED"
    assert world.registry.find("demo").activeOperationId is None


def test_a_quota_refused_while_its_operation_cannot_be_cancelled_keeps_sagemakers_error_naming_the_cancel(
    world, monkeypatch, caplog
):
    world.governance.fail_create = ConflictError("ConflictException: a quota for this namespace exists")
    service = teams(world)

    def cancel_refused(operation, actor):
        raise OperationStateError("Operation is already FAILED; nothing to cancel.")

    monkeypatch.setattr(service._namespaces, "cancel", cancel_refused)
    with pytest.raises(ConflictError, match="ConflictException") as refused:
        service.create("demo", request("ml-a", 1), ADMIN)
    (operation,) = world.operations.list_for_cluster("demo").items
    assert f"POST /operations/{operation.operationId}/cancel" in refused.value.details["namespaceOperation"]
    assert "OperationStateError" in refused.value.details["namespaceOperation"]
    assert "team namespace operation not cancelled" in caplog.text


def test_a_quota_sagemaker_will_not_delete_cancels_the_removal_and_says_so_keeping_the_token(world):
    created(world, "ml-a", 1)
    plan = teams(world).plan_delete("demo", "ml-a", ADMIN)
    world.governance.fail_delete = WorkflowStartRefusedError("ThrottlingException: Rate exceeded")
    with pytest.raises(WorkflowStartRefusedError, match=r"not deleted: SageMaker refused .*Rate exceeded") as refused:
        teams(world).delete("demo", "ml-a", plan.confirmationToken, ADMIN)
    removal = world.operations.get(refused.value.details["namespaceOperationId"])
    assert (removal.kind, removal.status) == ("remove_team_namespace", "CANCELLED")
    assert f"removal (operation {removal.operationId}) was cancelled" in refused.value.message
    assert "POST /clusters/demo/teams/ml-a/namespace" in refused.value.message
    assert [team.team for team in teams(world).teams("demo").teams] == ["ml-a"]
    world.governance.fail_delete = RuntimeError(
        "An error occurred (ValidationException) when calling DeleteComputeQuota"
    )
    with pytest.raises(DependencyFailedError, match=r"\(An error occurred \(ValidationException\)"):
        teams(world).delete("demo", "ml-a", plan.confirmationToken, ADMIN)
    world.governance.fail_delete = None
    assert teams(world).delete("demo", "ml-a", plan.confirmationToken, ADMIN).status == "Deleting"


def test_the_teams_view_shows_each_teams_use_and_its_queued_jobs_with_kueues_reason(world):
    created(world, "ml-a", 1)
    created(world, "ml-b", 1)
    gpus = ResourceUse(G5, "nvidia.com/gpu", "1", "0")
    world.kueue.queues[EKS_NAME] = [ClusterQueueUse("hyperpod-ns-ml-a-clusterqueue", (gpus,), 1, 1)]
    waiting = "couldn't assign flavors to pod set pods: insufficient unused quota for nvidia.com/gpu in flavor x"
    world.kueue.workload_list[EKS_NAME] = [
        QueuedWorkload(
            "w1", "hyperpod-ns-ml-a", "HyperPodPyTorchJob", "first", "q", None, True, False, None, None, "t1"
        ),
        QueuedWorkload(
            "w2",
            "hyperpod-ns-ml-a",
            "HyperPodPyTorchJob",
            "second",
            "q",
            "training-priority",
            False,
            False,
            "Pending",
            waiting,
            "t2",
        ),
        QueuedWorkload(
            "w3", "default", "HyperPodPyTorchJob", "elsewhere", "q", None, False, False, "Pending", waiting, "t3"
        ),
    ]
    view = {team.team: team for team in teams(world).teams("demo").teams}
    a, b = view["ml-a"], view["ml-b"]
    assert [(u.instanceType, u.resource, u.inUse) for u in a.inUse] == [(G5, "nvidia.com/gpu", "1")]
    assert a.admittedWorkloads == 1
    assert [(q.name, q.priorityClass, q.reason, q.message) for q in a.queued] == [
        ("second", "training-priority", "Pending", waiting)
    ]
    assert (b.inUse, b.admittedWorkloads, b.queued) == ([], 0, [])


def test_the_teams_view_says_each_teams_use_is_unknown_and_why_when_rbac_refuses_kueues_kinds(world):
    created(world, "ml-a", 1)
    world.kueue.refusal = KueueReadRefusedError("clusterqueues.kueue.x-k8s.io: Forbidden")
    [team] = teams(world).teams("demo").teams
    assert (team.inUse, team.admittedWorkloads, team.queued) == ([], None, [])
    assert team.queueUnknown is not None
    assert "refuses the control plane's view role Kueue's clusterqueues.kueue.x-k8s.io: Forbidden" in team.queueUnknown
    assert "needs the Kubernetes group instantstart:viewers" in team.queueUnknown
    assert "POST /clusters/{clusterTag}/access restores them" in team.queueUnknown
    assert team.allocations[0].count == 1


def test_the_teams_view_reads_as_unknown_use_while_the_kubernetes_api_is_not_reachable(world):
    created(world, "ml-a", 1)
    world.eks.clusters[EKS_NAME] = replace(world.eks.clusters[EKS_NAME], endpoint=None)
    [team] = teams(world).teams("demo").teams
    assert (team.admittedWorkloads, team.namespaceReady) == (None, None)
    assert team.queueUnknown
