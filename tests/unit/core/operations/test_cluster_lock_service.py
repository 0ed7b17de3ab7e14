"""The cluster lock: taken by each attempt, released on every failure path and only by the attempt holding it, and
recovered when left behind (issue 11, items 1 and 2)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.operations.service import LOCK_RECORD_GRACE, RECOVER_LOCK_ACTION
from controlplane.core.ports.persistence import ClusterLock
from controlplane.models.clusters import ClusterStatus, NetworkPlan
from controlplane.models.errors import ClusterBusyError, ConflictError
from controlplane.models.operations import OperationKind, OperationStatus

ADMIN = Actor("alice", Role.ADMIN, request_id="req-1")
NETWORK = NetworkPlan(vpcCidr="10.90.0.0/16", cidrSource="automatic", subnets=[])


@pytest.fixture
def service(operations, registry, make_record):
    registry.create(make_record(status=ClusterStatus.CREATING))
    return operations


def start(service, registry):
    return service.start(
        registry.find("demo"), ADMIN, OperationKind.CREATE_EKS_CLUSTER, kubernetesVersion="1.34", network=NETWORK
    )


def failed_operation(service, registry):
    operation = start(service, registry)
    return service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})


def test_a_start_whose_record_write_fails_releases_the_lock_and_the_next_start_is_accepted(
    service, registry, repository, monkeypatch
):
    def broken_write(operation):
        raise UnicodeEncodeError("utf-8", "\ud800x", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(repository, "create", broken_write)
    with pytest.raises(UnicodeEncodeError):
        start(service, registry)
    assert registry.holder("demo") is None
    monkeypatch.undo()
    operation = start(service, registry)
    assert registry.holder("demo") == ClusterLock(operation.operationId, 1, operation.createdAt)


def test_a_lock_whose_operation_was_never_recorded_is_cleared_by_the_next_start_and_audited(
    service, registry, clock, audit
):
    registry.acquire("demo", ClusterLock("op-crashed", 1, clock.now()))
    clock.sleep(LOCK_RECORD_GRACE.total_seconds() + 1)
    operation = start(service, registry)
    assert registry.find("demo").activeOperationId == operation.operationId
    (entry,) = audit.entries
    assert (entry.action, entry.operationId, entry.target) == (RECOVER_LOCK_ACTION, "op-crashed", "demo")
    assert "never recorded" in entry.outcome


def test_a_lock_just_taken_by_a_start_still_recording_its_operation_is_respected(service, registry, clock, audit):
    registry.acquire("demo", ClusterLock("op-starting", 1, clock.now()))
    clock.sleep(LOCK_RECORD_GRACE.total_seconds() - 1)
    with pytest.raises(ClusterBusyError):
        start(service, registry)
    assert registry.find("demo").activeOperationId == "op-starting"
    assert audit.entries == []


def test_a_lock_left_by_an_operation_that_ended_is_cleared_at_once(service, registry, repository, audit):
    operation = start(service, registry)
    repository.items[operation.operationId] = operation.model_copy(update={"status": OperationStatus.SUCCEEDED})
    following = start(service, registry)
    assert registry.find("demo").activeOperationId == following.operationId
    assert "SUCCEEDED" in audit.entries[0].outcome


def test_a_running_operation_keeps_its_lock(service, registry, audit):
    operation = start(service, registry)
    with pytest.raises(ClusterBusyError):
        start(service, registry)
    assert registry.find("demo").activeOperationId == operation.operationId
    assert audit.entries == []


def test_concurrent_resumes_start_one_attempt_which_keeps_the_lock(service, registry, launcher):
    for _ in range(10):
        operation = failed_operation(service, registry)

        def resume(_: int, operation_id: str = operation.operationId) -> bool:
            try:
                service.resume(operation_id, ADMIN)
            except ConflictError:
                return False
            return True

        with ThreadPoolExecutor(max_workers=20) as pool:
            outcomes = list(pool.map(resume, range(20)))
        assert outcomes.count(True) == 1
        resumed = service.get(operation.operationId)
        assert (resumed.status, resumed.attempt) == (OperationStatus.PENDING, 2)
        assert registry.holder("demo") == ClusterLock(operation.operationId, 2, registry.holder("demo").acquired_at)
        service.succeed(operation.operationId)
        registry.release("demo", operation.operationId, 2)


def test_a_release_by_an_earlier_attempt_leaves_the_current_attempts_lock(service, registry):
    operation = failed_operation(service, registry)
    service.resume(operation.operationId, ADMIN)
    registry.release("demo", operation.operationId, 1)
    assert registry.holder("demo").attempt == 2


def test_a_cancel_brings_the_cluster_record_out_of_creating_and_frees_the_cluster(service, registry):
    operation = start(service, registry)
    service.cancel(operation.operationId, ADMIN)
    record = registry.find("demo")
    assert (record.status, record.activeOperationId) == (ClusterStatus.FAILED, None)
    assert record.lastOperationId == operation.operationId


def test_a_stale_lock_is_replaced_only_while_it_is_still_the_same_lock(registry, make_record, clock):
    registry.create(make_record())
    stale = ClusterLock("op-old", 1, clock.now() - timedelta(hours=1))
    registry.acquire("demo", stale)
    registry.acquire("demo", ClusterLock("op-a", 1, clock.now()), replacing=stale)
    with pytest.raises(ClusterBusyError):
        registry.acquire("demo", ClusterLock("op-b", 1, clock.now()), replacing=stale)
    assert registry.holder("demo").operation_id == "op-a"


@pytest.mark.parametrize("end", ["succeed", "fail", "cancel"])
def test_whoever_sees_an_operation_ended_finds_the_cluster_free(service, registry, repository, monkeypatch, end):
    """The lock is released before the terminal status is written: a client waiting on the operation may start the
    next stage the moment it reads the status (found with the sandbox's waits near zero)."""
    operation = start(service, registry)
    holder_when_ended = []
    write = repository.replace

    def observed_write(changed, expected_version):
        if changed.status.terminal:
            holder_when_ended.append(registry.holder("demo"))
        return write(changed, expected_version)

    monkeypatch.setattr(repository, "replace", observed_write)
    if end == "succeed":
        service.succeed(operation.operationId)
    elif end == "fail":
        service.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})
    else:
        service.cancel(operation.operationId, ADMIN)
    assert holder_when_ended == [None]
