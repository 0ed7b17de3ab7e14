import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.operations.service import OperationService
from controlplane.core.ports.persistence import ClusterLock
from controlplane.models.clusters import ClusterStatus, NetworkPlan
from controlplane.models.errors import (
    ClusterBusyError,
    OperationStateError,
    StaleOperationError,
    StaleVersionError,
    WorkflowStartRefusedError,
)
from controlplane.models.operations import MAX_ATTEMPTS_KEPT, OperationKind, OperationStatus, StageStatus

STAGES = ["network", "iam", "eks-control-plane", "cluster-access", "kubernetes-api", "events"]
ADMIN = Actor("alice", Role.ADMIN)
NETWORK = NetworkPlan(vpcCidr="10.90.0.0/16", cidrSource="automatic", subnets=[])


@pytest.fixture
def service(operations, registry, make_record):
    registry.create(make_record(status=ClusterStatus.CREATING))
    return operations


def start(service: OperationService, registry):
    return service.start(
        registry.find("demo"), ADMIN, OperationKind.CREATE_EKS_CLUSTER, kubernetesVersion="1.34", network=NETWORK
    )


def test_start_records_a_pending_operation_takes_the_lock_and_launches_its_first_execution(service, registry, launcher):
    operation = start(service, registry)
    assert operation.status == OperationStatus.PENDING
    assert [s.name for s in operation.stages] == STAGES
    kind, execution, payload = launcher.started[0]
    assert (kind, execution) == (OperationKind.CREATE_EKS_CLUSTER, operation.operationId)
    assert payload == operation.input
    assert payload["operationId"] == operation.operationId
    assert operation.executionArn.endswith(operation.operationId)
    assert registry.find("demo").activeOperationId == operation.operationId


def test_a_second_operation_on_a_busy_cluster_is_refused_and_not_recorded(service, registry, repository):
    start(service, registry)
    with pytest.raises(ClusterBusyError):
        start(service, registry)
    assert len(repository.items) == 1


def test_an_input_missing_its_kinds_part_is_refused_before_the_lock_is_taken(service, registry, launcher):
    with pytest.raises(ValueError, match="network"):
        service.start(registry.find("demo"), ADMIN, OperationKind.CREATE_EKS_CLUSTER, kubernetesVersion="1.34")
    assert registry.find("demo").activeOperationId is None
    assert launcher.started == []


def test_a_workflow_that_cannot_start_fails_its_operation_and_releases_the_lock(service, registry, launcher):
    launcher.fail_with = RuntimeError("no state machine")
    with pytest.raises(RuntimeError):
        start(service, registry)
    (operation,) = service.list_for_cluster("demo").items
    assert operation.status == OperationStatus.FAILED
    assert operation.error.code == "WorkflowStartFailed"
    assert registry.find("demo").activeOperationId is None


def test_a_workflow_step_functions_refuses_for_now_is_a_503_naming_the_failed_operation_to_resume(
    service, registry, launcher
):
    launcher.fail_with = WorkflowStartRefusedError("Refused for now (ExecutionLimitExceeded).", {"refusal": "x"})
    with pytest.raises(WorkflowStartRefusedError) as refused:
        start(service, registry)
    (operation,) = service.list_for_cluster("demo").items
    assert refused.value.status == 503
    assert refused.value.details == {"refusal": "x", "operationId": operation.operationId}
    assert f"resume it (POST /operations/{operation.operationId}/resume) in 30 s" in refused.value.message
    assert (operation.status, registry.find("demo").activeOperationId) == (OperationStatus.FAILED, None)


def test_beginning_a_later_stage_finishes_the_earlier_ones(service, registry, clock):
    operation = start(service, registry)
    service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")
    clock.sleep(5)
    advanced = service.begin_step(operation.operationId, "Create EKS Cluster", "inc-demo")
    statuses = [(s.name, s.status) for s in advanced.stages]
    assert statuses == [
        ("network", StageStatus.SUCCEEDED),
        ("iam", StageStatus.SUCCEEDED),
        ("eks-control-plane", StageStatus.RUNNING),
        ("cluster-access", StageStatus.PENDING),
        ("kubernetes-api", StageStatus.PENDING),
        ("events", StageStatus.PENDING),
    ]
    assert advanced.currentStep == "Create EKS Cluster"
    assert advanced.stages[0].endedAt == clock.now()


def test_repeating_the_current_step_writes_nothing(service, registry):
    operation = start(service, registry)
    first = service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")
    again = service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")
    assert again.version == first.version


def test_the_phase_of_a_stage_is_written_once(service, registry):
    operation = start(service, registry)
    service.begin_step(operation.operationId, "Create EKS Cluster", "inc-demo")
    noted = service.note_phase(operation.operationId, "Create EKS Cluster", "Waiting for eks-cluster-demo")
    again = service.note_phase(operation.operationId, "Create EKS Cluster", "Waiting for eks-cluster-demo")
    assert noted.stage("eks-control-plane").message == "Waiting for eks-cluster-demo"
    assert again.version == noted.version


def test_failure_names_the_failed_state_and_keeps_finished_stages(service, registry):
    operation = start(service, registry)
    service.begin_step(operation.operationId, "Ensure Cluster Role", "inc-demo")
    failed = service.fail_execution(
        operation.operationId, "arn:exec", {"Error": "AccessDenied", "Cause": '{"errorMessage": "no"}'}
    )
    assert failed.status == OperationStatus.FAILED
    assert failed.error.step == "Ensure Cluster Role"
    assert failed.error.message == "Step 'Ensure Cluster Role' failed: no"
    assert [s.status for s in failed.stages] == [StageStatus.SUCCEEDED, StageStatus.FAILED, *[StageStatus.PENDING] * 4]


def test_a_step_that_fails_before_it_runs_fails_its_own_stage_not_the_previous_one(service, registry):
    operation = start(service, registry)
    service.begin_step(operation.operationId, "Ensure Security Group", "inc-demo")
    failed = service.fail_execution(operation.operationId, "arn:exec", {"Error": "Lambda.Timeout", "Cause": "x"})
    assert failed.error.step == "Ensure Cluster Role"
    assert [s.status for s in failed.stages][:2] == [StageStatus.SUCCEEDED, StageStatus.FAILED]


def test_resume_reruns_a_failed_operation_as_a_new_execution_under_the_lock(service, registry, launcher):
    operation = start(service, registry)
    service.begin_step(operation.operationId, "Ensure Cluster Role", "inc-demo")
    service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})
    registry.release("demo", operation.operationId, 1)
    resumed = service.resume(operation.operationId, ADMIN)
    assert resumed.attempt == 2
    assert resumed.error is None
    assert launcher.started[-1][1] == f"{operation.operationId}-r2"
    assert launcher.started[-1][2] == operation.input
    assert [s.status for s in resumed.stages] == [StageStatus.SUCCEEDED, *[StageStatus.PENDING] * 5]
    assert registry.find("demo").activeOperationId == operation.operationId


def test_a_resumed_delete_marks_its_cluster_deleting_again(service, registry):
    """Found by the soak: the Region's last two deletes, both resumed after a failure, each saw the other FAILED (not
    being deleted) and kept the Region's event forwarding rule for it, so the rule outlived every cluster."""
    operation = service.start(registry.find("demo"), ADMIN, OperationKind.DELETE_EKS_CLUSTER, destructive=True)
    service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})
    registry.save(registry.find("demo").model_copy(update={"status": ClusterStatus.FAILED}))  # as its outcome records
    registry.release("demo", operation.operationId, 1)

    service.resume(operation.operationId, ADMIN)

    assert registry.find("demo").status == ClusterStatus.DELETING


def test_resume_on_a_cluster_busy_with_another_operation_is_refused(service, registry, clock):
    operation = start(service, registry)
    service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})
    registry.release("demo", operation.operationId, 1)
    registry.acquire("demo", ClusterLock("op-other", 1, clock.now()))
    with pytest.raises(ClusterBusyError):
        service.resume(operation.operationId, ADMIN)
    assert service.get(operation.operationId).status == OperationStatus.FAILED


def test_a_resume_that_loses_the_race_releases_the_lock_it_took(service, registry, repository):
    operation = start(service, registry)
    service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})
    registry.release("demo", operation.operationId, 1)
    original = repository.replace

    def concurrent_writer(changed, expected_version):
        repository.replace = original
        raise StaleVersionError("changed")

    repository.replace = concurrent_writer
    with pytest.raises(StaleVersionError):
        service.resume(operation.operationId, ADMIN)
    assert registry.find("demo").activeOperationId is None


def test_running_or_succeeded_operations_cannot_be_resumed(service, registry):
    operation = start(service, registry)
    with pytest.raises(OperationStateError):
        service.resume(operation.operationId, ADMIN)
    service.succeed(operation.operationId)
    with pytest.raises(OperationStateError):
        service.resume(operation.operationId, ADMIN)


def test_cancel_stops_the_execution_and_releases_the_cluster(service, registry, launcher):
    operation = start(service, registry)
    service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")
    cancelled = service.cancel(operation.operationId, ADMIN)
    assert cancelled.status == OperationStatus.CANCELLED
    assert cancelled.stages[0].status == StageStatus.CANCELLED
    assert launcher.stopped == [operation.executionArn]
    assert registry.find("demo").activeOperationId is None
    with pytest.raises(OperationStateError):
        service.cancel(operation.operationId, ADMIN)


def test_steps_of_a_cancelled_operation_stop(service, registry):
    operation = start(service, registry)
    service.cancel(operation.operationId, ADMIN)
    with pytest.raises(OperationStateError):
        service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")


def test_wait_returns_the_current_state_after_its_timeout(service, registry, clock):
    operation = start(service, registry)
    before = clock.now()
    waited = service.wait(operation.operationId, 3)
    assert waited.status == OperationStatus.PENDING
    assert (clock.now() - before).total_seconds() >= 3


def test_wait_never_waits_longer_than_the_long_poll_bound(service, registry, clock):
    operation = start(service, registry)
    before = clock.now()
    service.wait(operation.operationId, 3600)
    assert (clock.now() - before).total_seconds() <= 26


def replaced(registry, make_record) -> None:
    """The cluster `demo` deleted and created again: another incarnation under the same tag."""
    registry.delete("demo")
    registry.create(make_record(status=ClusterStatus.ACTIVE, incarnation="inc-new"))


def test_an_operation_carries_its_clusters_incarnation_into_its_workflow(service, registry):
    operation = start(service, registry)
    assert operation.incarnation == operation.input["incarnation"] == "inc-demo"


def test_resume_refuses_an_operation_of_another_incarnation_naming_both(service, registry, make_record, launcher):
    operation = start(service, registry)
    service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})
    replaced(registry, make_record)
    with pytest.raises(StaleOperationError, match=r"inc-demo.*inc-new") as refused:
        service.resume(operation.operationId, ADMIN)
    assert refused.value.details == {"operationIncarnation": "inc-demo", "clusterIncarnation": "inc-new"}
    assert registry.find("demo").activeOperationId is None
    assert len(launcher.started) == 1


def test_resume_of_an_operation_whose_cluster_is_gone_says_so(service, registry):
    operation = start(service, registry)
    service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})
    registry.delete("demo")
    with pytest.raises(StaleOperationError, match="no longer exists") as refused:
        service.resume(operation.operationId, ADMIN)
    assert refused.value.details["clusterIncarnation"] is None


def test_cancel_refuses_an_operation_of_another_incarnation(service, registry, make_record, launcher):
    operation = start(service, registry)
    replaced(registry, make_record)
    with pytest.raises(StaleOperationError):
        service.cancel(operation.operationId, ADMIN)
    assert launcher.stopped == []
    assert service.get(operation.operationId).status == OperationStatus.PENDING


def test_a_step_of_another_incarnation_is_refused_and_its_failure_leaves_the_new_cluster_alone(
    service, registry, make_record
):
    operation = start(service, registry)
    replaced(registry, make_record)
    with pytest.raises(StaleOperationError):
        service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")
    before = registry.find("demo")
    failed = service.fail_execution(operation.operationId, "arn:exec", {"Error": "StaleOperationError", "Cause": "x"})
    assert failed.status == OperationStatus.FAILED
    assert registry.find("demo") == before


def fail_at(service, operation, step, clock, cause="boom"):
    service.begin_step(operation.operationId, step, "inc-demo")
    clock.sleep(5)
    return service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": cause})


def test_an_ended_operation_has_no_current_step_and_its_attempt_names_the_last_one(service, registry, clock):
    operation = start(service, registry)
    failed = fail_at(service, operation, "Ensure Cluster Role", clock)
    assert failed.currentStep is None
    assert failed.attempts[-1].lastStep == "Ensure Cluster Role"
    registry.release("demo", operation.operationId, 1)
    service.resume(operation.operationId, ADMIN)
    service.begin_step(operation.operationId, "Ensure Event Forwarding", "inc-demo")
    succeeded = service.succeed(operation.operationId)
    assert succeeded.currentStep is None
    assert succeeded.attempts[-1].lastStep == "Ensure Event Forwarding"


def test_resume_appends_an_attempt_and_keeps_the_first_attempts_error_and_stages(service, registry, clock):
    operation = start(service, registry)
    service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")
    clock.sleep(5)
    failed = fail_at(service, operation, "Ensure Cluster Role", clock, cause='{"errorMessage": "denied"}')
    registry.release("demo", operation.operationId, 1)
    clock.sleep(60)
    service.resume(operation.operationId, Actor("bob", Role.ADMIN))
    service.begin_step(operation.operationId, "Ensure Cluster Role", "inc-demo")
    clock.sleep(5)
    resumed = service.fail_execution(operation.operationId, "arn:exec2", {"Error": "Y", "Cause": "again"})

    first, second = resumed.attempts
    assert (first.number, first.actor, first.status) == (1, "alice", OperationStatus.FAILED)
    assert first.error == failed.error and first.error.message == "Step 'Ensure Cluster Role' failed: denied"
    assert first.startedAt == operation.createdAt and first.endedAt == failed.updatedAt
    assert [(s.name, s.status) for s in first.stages] == [
        ("network", StageStatus.SUCCEEDED),
        ("iam", StageStatus.FAILED),
    ]
    assert first.stages == failed.stages[:2]
    assert (second.number, second.actor, second.status) == (2, "bob", OperationStatus.FAILED)
    assert second.error.message == "Step 'Ensure Cluster Role' failed: again"
    assert [(s.name, s.status) for s in second.stages] == [("iam", StageStatus.FAILED)]
    assert second.stages[0].startedAt > first.endedAt


def test_a_step_passing_through_a_stage_an_earlier_attempt_finished_keeps_its_times(service, registry, clock):
    operation = start(service, registry)
    service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")
    clock.sleep(5)
    failed = fail_at(service, operation, "Ensure Cluster Role", clock)
    registry.release("demo", operation.operationId, 1)
    clock.sleep(60)
    service.resume(operation.operationId, ADMIN)
    passing = service.begin_step(operation.operationId, "Ensure VPC", "inc-demo")
    assert passing.stage("network") == failed.stage("network")
    assert passing.currentStep == "Ensure VPC" and passing.attempts[-1].stages == []


def test_the_attempts_kept_are_bounded_keeping_the_first(service, registry, clock):
    operation = start(service, registry)
    for attempt in range(1, MAX_ATTEMPTS_KEPT + 3):
        fail_at(service, operation, "Ensure Cluster Role", clock, cause=f"failure {attempt}")
        registry.release("demo", operation.operationId, attempt)
        resumed = service.resume(operation.operationId, ADMIN)
    assert len(resumed.attempts) == MAX_ATTEMPTS_KEPT
    assert resumed.attempts[0].error.message == "Step 'Ensure Cluster Role' failed: failure 1"
    assert [a.number for a in resumed.attempts][-2:] == [resumed.attempt - 1, resumed.attempt]
