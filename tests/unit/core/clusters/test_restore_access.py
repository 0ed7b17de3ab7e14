"""Restoring a finished or imported cluster's Kubernetes access: only an ACTIVE cluster whose EKS control plane serves
its API, one operation at a time, re-running stage 1's access steps."""

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.clusters.access import ClusterAccessService
from controlplane.models.clusters import ClusterStatus
from controlplane.models.errors import ClusterBusyError, ClusterNotReadyError
from controlplane.models.operations import OperationKind
from controlplane.workflows.definitions import WORKFLOWS

ADMIN = Actor("alice", Role.ADMIN)


@pytest.fixture
def access(clusters, operations, eks) -> ClusterAccessService:
    eks.add_cluster("eks-cluster-demo")
    return ClusterAccessService(clusters, operations, lambda region: eks)


def test_an_active_cluster_s_access_is_restored_by_stage_one_s_access_steps(access, registry, launcher, make_record):
    registry.create(make_record("eks", imported=True))

    assert [a.resource for a in access.plan_restore("demo").actions] == ["EKS access entries", "Kubernetes RBAC"]
    assert launcher.started == []
    access.restore("demo", ADMIN)

    ((kind, _, payload),) = launcher.started
    assert (kind, payload["eksClusterName"]) == (OperationKind.RESTORE_CLUSTER_ACCESS, "eks-cluster-demo")
    steps = [task.step for stage in WORKFLOWS[OperationKind.RESTORE_CLUSTER_ACCESS].body for task in stage.body]
    assert steps == ["Ensure Access Entry", "Verify Kubernetes API"]


def test_a_cluster_that_is_not_active_is_told_to_resume_its_create_or_import(access, registry, launcher, make_record):
    registry.create(make_record(status=ClusterStatus.FAILED))

    with pytest.raises(ClusterNotReadyError, match="Resume that operation instead"):
        access.plan_restore("demo")
    with pytest.raises(ClusterNotReadyError):
        access.restore("demo", ADMIN)
    assert launcher.started == []


def test_a_second_restore_while_the_first_holds_the_cluster_is_refused_as_busy(access, registry, make_record):
    registry.create(make_record("eks"))
    access.restore("demo", ADMIN)

    with pytest.raises(ClusterBusyError):
        access.restore("demo", ADMIN)
