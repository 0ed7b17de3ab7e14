from datetime import UTC, datetime, timedelta

import pytest

from controlplane.core.operations import transitions
from controlplane.models.errors import OperationStateError
from controlplane.models.operations import OperationError, OperationKind, OperationStatus, StageStatus

T0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
T1 = T0 + timedelta(minutes=1)
FEATURES = OperationKind.UPDATE_CLUSTER_FEATURES


def pipeline():
    return transitions.new_operation(OperationKind.CREATE_CLUSTER, "demo", "inc-demo", "alice", T0)


def statuses(operation):
    return {stage.name: stage.status for stage in operation.stages}


def test_a_new_operation_is_pending_with_every_stage_of_its_workflow():
    operation = pipeline()
    assert operation.status == OperationStatus.PENDING
    assert [stage.name for stage in operation.stages] == ["eks", "dependencies", "hyperpod", "storage"]
    assert operation.operationId.startswith("op-") and operation.attempt == 1


def test_a_run_narrowed_to_some_stages_lists_only_those_in_execution_order():
    operation = transitions.new_operation(
        FEATURES, "demo", "inc-demo", "alice", T0, stages=["karpenter", "certManager"]
    )
    assert [stage.name for stage in operation.stages] == ["karpenter", "certManager"]


@pytest.mark.parametrize("stages", [["noSuchFeature"], []])
def test_stages_that_are_not_the_workflows_are_refused(stages):
    with pytest.raises(OperationStateError, match="are not stages"):
        transitions.new_operation(FEATURES, "demo", "inc-demo", "alice", T0, stages=stages)


def test_beginning_a_step_runs_its_stage_and_finishes_the_ones_before():
    running = transitions.begin_step(pipeline(), "Ensure Execution Role", T1)
    assert running.status == OperationStatus.RUNNING and running.currentStep == "Ensure Execution Role"
    assert statuses(running) == {
        "eks": StageStatus.SUCCEEDED,
        "dependencies": StageStatus.SUCCEEDED,
        "hyperpod": StageStatus.RUNNING,
        "storage": StageStatus.PENDING,
    }
    assert running.stage("eks").startedAt == running.stage("eks").endedAt == T1


def test_beginning_the_current_step_again_changes_nothing():
    running = transitions.begin_step(pipeline(), "Ensure VPC", T0)
    assert transitions.begin_step(running, "Ensure VPC", T1) is None


def test_a_step_outside_the_workflow_is_refused():
    with pytest.raises(OperationStateError, match="not part of a create_cluster workflow"):
        transitions.begin_step(pipeline(), "Ensure Karpenter", T0)


def test_a_step_of_a_finished_operation_stops():
    done = transitions.finish(pipeline(), OperationStatus.CANCELLED, T0)
    with pytest.raises(OperationStateError, match="CANCELLED"):
        transitions.begin_step(done, "Ensure VPC", T1)


def test_a_phase_message_is_written_to_the_steps_stage_once():
    running = transitions.begin_step(pipeline(), "Create EKS Cluster", T0)
    noted = transitions.note_phase(running, "Create EKS Cluster", "Waiting", T1)
    assert noted.stage("eks").message == "Waiting"
    assert transitions.note_phase(noted, "Create EKS Cluster", "Waiting", T1) is None


def test_success_finishes_every_stage_still_open():
    running = transitions.begin_step(pipeline(), "Ensure VPC", T0)
    done = transitions.finish(running, OperationStatus.SUCCEEDED, T1)
    assert set(statuses(done).values()) == {StageStatus.SUCCEEDED}


def test_a_failure_fails_the_failed_steps_stage_and_finishes_a_running_earlier_one():
    running = transitions.begin_step(pipeline(), "Verify Kubernetes API", T0)
    error = OperationError(code="X", message="boom", step="Ensure OIDC Provider")
    failed = transitions.finish(running, OperationStatus.FAILED, T1, error)
    assert statuses(failed) == {
        "eks": StageStatus.SUCCEEDED,
        "dependencies": StageStatus.FAILED,
        "hyperpod": StageStatus.PENDING,
        "storage": StageStatus.PENDING,
    }
    assert failed.stage("dependencies").message == "boom" and failed.error == error


def test_a_cancel_cancels_the_running_stage_only():
    running = transitions.begin_step(pipeline(), "Ensure OIDC Provider", T0)
    cancelled = transitions.finish(running, OperationStatus.CANCELLED, T1)
    assert statuses(cancelled)["dependencies"] == StageStatus.CANCELLED
    assert statuses(cancelled)["hyperpod"] == StageStatus.PENDING


def test_a_finished_operation_does_not_finish_again():
    done = transitions.finish(pipeline(), OperationStatus.SUCCEEDED, T0)
    assert transitions.finish(done, OperationStatus.FAILED, T1) is None


def test_a_rerun_keeps_succeeded_stages_and_resets_the_others_for_the_next_attempt():
    running = transitions.begin_step(pipeline(), "Ensure OIDC Provider", T0)
    failed = transitions.finish(running, OperationStatus.FAILED, T0, OperationError(code="X", message="m"))
    rerun = transitions.rerun(failed, "bob", T1)
    assert (rerun.status, rerun.attempt, rerun.actor, rerun.error, rerun.currentStep) == (
        OperationStatus.PENDING,
        2,
        "bob",
        None,
        None,
    )
    assert statuses(rerun) == {
        "eks": StageStatus.SUCCEEDED,
        "dependencies": StageStatus.PENDING,
        "hyperpod": StageStatus.PENDING,
        "storage": StageStatus.PENDING,
    }


@pytest.mark.parametrize("status", [OperationStatus.PENDING, OperationStatus.RUNNING, OperationStatus.SUCCEEDED])
def test_only_failed_or_cancelled_operations_rerun(status):
    with pytest.raises(OperationStateError, match="only FAILED or CANCELLED"):
        transitions.rerun(pipeline().model_copy(update={"status": status}), "bob", T1)
