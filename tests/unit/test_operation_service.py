import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.operations import OperationService
from controlplane.models.clusters import ClusterRecord, ClusterStatus
from controlplane.models.errors import ClusterBusyError, OperationStateError
from controlplane.models.operations import OperationKind, OperationStatus, StageStatus
from tests.fakes.persistence import FakeClock, InMemoryClusterRegistry, InMemoryOperationRepository, RecordingLauncher

ADMIN = Actor("alice", Role.ADMIN)
STAGES = ["network", "iam", "eks-control-plane", "cluster-access", "kubernetes-api"]


@pytest.fixture
def world():
    clock = FakeClock()
    registry = InMemoryClusterRegistry()
    registry.create(
        ClusterRecord(
            clusterTag="demo",
            region="us-west-2",
            status=ClusterStatus.CREATING,
            eksClusterName="eks-cluster-demo",
            createdAt=clock.now(),
            updatedAt=clock.now(),
            createdBy="alice",
        )
    )
    launcher = RecordingLauncher(failed_state="Ensure Cluster Role")
    service = OperationService(InMemoryOperationRepository(), registry, launcher, clock)
    return service, registry, launcher, clock


def start(service):
    return service.start(OperationKind.CREATE_EKS_CLUSTER, "demo", ADMIN, lambda op_id: {"operationId": op_id})


def test_start_records_a_pending_operation_and_launches_its_first_execution(world):
    service, registry, launcher, _ = world
    operation = start(service)
    assert operation.status == OperationStatus.PENDING
    assert [s.name for s in operation.stages] == STAGES
    assert launcher.started[0][1] == operation.operationId
    assert operation.executionArn.endswith(operation.operationId)
    assert registry.find("demo").activeOperationId == operation.operationId


def test_a_second_operation_on_a_busy_cluster_is_refused(world):
    service, *_ = world
    start(service)
    with pytest.raises(ClusterBusyError):
        start(service)


def test_beginning_a_later_stage_finishes_the_earlier_ones(world):
    service, _, _, clock = world
    operation = start(service)
    service.begin_step(operation.operationId, "Ensure VPC")
    clock.sleep(5)
    advanced = service.begin_step(operation.operationId, "Create EKS Cluster")
    statuses = [(s.name, s.status) for s in advanced.stages]
    assert statuses == [
        ("network", StageStatus.SUCCEEDED),
        ("iam", StageStatus.SUCCEEDED),
        ("eks-control-plane", StageStatus.RUNNING),
        ("cluster-access", StageStatus.PENDING),
        ("kubernetes-api", StageStatus.PENDING),
    ]
    assert advanced.currentStep == "Create EKS Cluster"
    assert advanced.stages[0].endedAt == clock.now()


def test_repeating_the_current_step_writes_nothing(world):
    service, *_ = world
    operation = start(service)
    first = service.begin_step(operation.operationId, "Ensure VPC")
    again = service.begin_step(operation.operationId, "Ensure VPC")
    assert again.version == first.version


def test_failure_names_the_failed_state_and_keeps_finished_stages(world):
    service, *_ = world
    operation = start(service)
    service.begin_step(operation.operationId, "Ensure Cluster Role")
    failed = service.fail_execution(
        operation.operationId, "arn:exec", {"Error": "AccessDenied", "Cause": '{"errorMessage": "no"}'}
    )
    assert failed.status == OperationStatus.FAILED
    assert failed.error.step == "Ensure Cluster Role"
    assert failed.error.message == "Step 'Ensure Cluster Role' failed: no"
    assert [s.status for s in failed.stages] == [StageStatus.SUCCEEDED, StageStatus.FAILED, *[StageStatus.PENDING] * 3]


def test_a_step_that_fails_before_it_runs_fails_its_own_stage_not_the_previous_one(world):
    service, *_ = world
    operation = start(service)
    service.begin_step(operation.operationId, "Ensure Security Group")
    failed = service.fail_execution(operation.operationId, "arn:exec", {"Error": "Lambda.Timeout", "Cause": "x"})
    assert failed.error.step == "Ensure Cluster Role"
    assert [s.status for s in failed.stages][:2] == [StageStatus.SUCCEEDED, StageStatus.FAILED]


def test_resume_reruns_a_failed_operation_as_a_new_execution(world):
    service, registry, launcher, _ = world
    operation = start(service)
    service.begin_step(operation.operationId, "Ensure Cluster Role")
    service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})
    registry.release("demo", operation.operationId, None)
    resumed = service.resume(operation.operationId, ADMIN)
    assert resumed.attempt == 2
    assert resumed.error is None
    assert launcher.started[-1][1] == f"{operation.operationId}-r2"
    assert [s.status for s in resumed.stages] == [StageStatus.SUCCEEDED, *[StageStatus.PENDING] * 4]


def test_running_or_succeeded_operations_cannot_be_resumed(world):
    service, *_ = world
    operation = start(service)
    with pytest.raises(OperationStateError):
        service.resume(operation.operationId, ADMIN)
    service.succeed(operation.operationId)
    with pytest.raises(OperationStateError):
        service.resume(operation.operationId, ADMIN)


def test_cancel_stops_the_execution_and_releases_the_cluster(world):
    service, registry, launcher, _ = world
    operation = start(service)
    service.begin_step(operation.operationId, "Ensure VPC")
    cancelled = service.cancel(operation.operationId, ADMIN)
    assert cancelled.status == OperationStatus.CANCELLED
    assert cancelled.stages[0].status == StageStatus.CANCELLED
    assert launcher.stopped == [operation.executionArn]
    assert registry.find("demo").activeOperationId is None
    with pytest.raises(OperationStateError):
        service.cancel(operation.operationId, ADMIN)


def test_steps_of_a_cancelled_operation_stop(world):
    service, *_ = world
    operation = start(service)
    service.cancel(operation.operationId, ADMIN)
    with pytest.raises(OperationStateError):
        service.begin_step(operation.operationId, "Ensure VPC")


def test_wait_returns_the_current_state_after_its_timeout(world):
    service, _, _, clock = world
    operation = start(service)
    before = clock.now()
    waited = service.wait(operation.operationId, 3)
    assert waited.status == OperationStatus.PENDING
    assert (clock.now() - before).total_seconds() >= 3
