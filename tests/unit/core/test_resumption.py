"""Resuming an operation: on its own cluster incarnation only, after its kind's checks, and a destructive one only with
the token of a fresh plan (issue 29, findings 1 and 2)."""

from __future__ import annotations

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.confirmations import Confirmations
from controlplane.core.resumption import ResumeService
from controlplane.models.clusters import ClusterRecord, ClusterStatus, NetworkPlan, Plan, PlannedAction
from controlplane.models.errors import ClusterNotReadyError, ConfirmationRequiredError, StaleOperationError
from controlplane.models.operations import Operation, OperationKind, OperationStatus
from tests.fakes.persistence import InMemoryConfirmationStore

ADMIN = Actor("alice", Role.ADMIN)
NETWORK = NetworkPlan(vpcCidr="10.90.0.0/16", cidrSource="automatic", subnets=[])
DOOMED = [PlannedAction(action="delete", resource="AWS::EC2::VPC", name="instantstart-demo-vpc")]


class Rechecks:
    """Every kind's checks: `refusal` raised when set, else a plan of `actions`."""

    resumes = frozenset(OperationKind)

    def __init__(self) -> None:
        self.actions = list(DOOMED)
        self.refusal: Exception | None = None
        self.checked: list[str] = []

    def recheck(self, record: ClusterRecord, operation: Operation) -> Plan:
        self.checked.append(operation.operationId)
        if self.refusal is not None:
            raise self.refusal
        return Plan(actions=self.actions)


@pytest.fixture
def rechecks() -> Rechecks:
    return Rechecks()


@pytest.fixture
def resumes(operations, clock, rechecks) -> ResumeService:
    return ResumeService(operations, Confirmations(InMemoryConfirmationStore(), clock), [rechecks])


def failed(operations, registry, make_record, *, destructive: bool) -> Operation:
    registry.create(make_record(status=ClusterStatus.ACTIVE))
    kind = OperationKind.DELETE_EKS_CLUSTER if destructive else OperationKind.CREATE_EKS_CLUSTER
    own = {} if destructive else {"kubernetesVersion": "1.34", "network": NETWORK}
    operation = operations.start(registry.find("demo"), ADMIN, kind, destructive=destructive, **own)
    return operations.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})


def test_every_kind_needs_a_service_that_rechecks_it(operations, clock):
    class Partial(Rechecks):
        resumes = frozenset({OperationKind.CREATE_EKS_CLUSTER})

    with pytest.raises(ValueError, match="delete_eks_cluster"):
        ResumeService(operations, Confirmations(InMemoryConfirmationStore(), clock), [Partial()])
    with pytest.raises(ValueError, match="two services"):
        ResumeService(operations, Confirmations(InMemoryConfirmationStore(), clock), [Rechecks(), Partial()])


def test_an_operation_that_needed_no_confirmation_resumes_after_its_checks(resumes, operations, registry, make_record):
    operation = failed(operations, registry, make_record, destructive=False)
    resumed = resumes.resume(operation.operationId, None, ADMIN)
    assert isinstance(resumed, Operation) and resumed.attempt == 2


def test_a_failing_check_refuses_the_resume_as_a_new_request_would(
    resumes, rechecks, operations, registry, make_record, launcher
):
    operation = failed(operations, registry, make_record, destructive=False)
    rechecks.refusal = ClusterNotReadyError("not ready")
    with pytest.raises(ClusterNotReadyError):
        resumes.resume(operation.operationId, None, ADMIN)
    assert operations.get(operation.operationId).status == OperationStatus.FAILED
    assert len(launcher.started) == 1


def test_a_destructive_operation_answers_a_resume_without_a_token_with_its_plan(
    resumes, operations, registry, make_record
):
    operation = failed(operations, registry, make_record, destructive=True)
    plan = resumes.resume(operation.operationId, None, ADMIN)
    assert isinstance(plan, Plan)
    assert plan.confirmationToken and plan.actions == DOOMED
    assert "unfinished stages" in (plan.message or "")
    assert operations.get(operation.operationId).status == OperationStatus.FAILED
    resumed = resumes.resume(operation.operationId, plan.confirmationToken, ADMIN)
    assert isinstance(resumed, Operation) and resumed.status == OperationStatus.PENDING


def test_a_resume_token_confirms_only_what_its_plan_listed(resumes, rechecks, operations, registry, make_record):
    operation = failed(operations, registry, make_record, destructive=True)
    token = resumes.plan(operation.operationId, ADMIN).confirmationToken
    rechecks.actions = [*DOOMED, PlannedAction(action="delete", resource="Deployment", name="default/chat")]
    with pytest.raises(ConfirmationRequiredError):
        resumes.resume(operation.operationId, token, ADMIN)
    assert operations.get(operation.operationId).status == OperationStatus.FAILED


def test_an_operation_of_another_incarnation_is_refused_before_its_checks(
    resumes, rechecks, operations, registry, make_record
):
    operation = failed(operations, registry, make_record, destructive=True)
    registry.delete("demo")
    registry.create(make_record(incarnation="inc-new"))
    for attempt in (
        lambda: resumes.plan(operation.operationId, ADMIN),
        lambda: resumes.resume(operation.operationId, None, ADMIN),
    ):
        with pytest.raises(StaleOperationError, match="inc-new"):
            attempt()
    assert rechecks.checked == []
