"""Stages 3-5 on a registered cluster: one registry read, the stage's own rules, then a plan or a start."""

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.models.clusters import ClusterStatus, ImportedNetwork
from controlplane.models.errors import (
    ClusterExistsError,
    ClusterNotReadyError,
    ForeignResourceError,
    InvalidRequestError,
)
from controlplane.models.hyperpod import CreateHyperPodRequest
from controlplane.models.operations import OperationKind
from controlplane.models.storage import ConfigureStorageRequest, FsxRequest

ADMIN = Actor("alice", Role.ADMIN)
GROUP = CreateHyperPodRequest(availabilityZone="us-west-2c", instanceType="ml.g6.4xlarge", instanceCount=1)


def test_dependencies_need_stage_one_and_start_with_the_records_facts(stage_requests, registry, launcher, make_record):
    registry.create(make_record())
    with pytest.raises(ClusterNotReadyError, match="'eks' stage"):
        stage_requests.plan_dependencies("demo")
    registry.save(make_record("eks"))
    assert [a.resource for a in stage_requests.plan_dependencies("demo").actions][-1] == "Kubernetes manifest"
    stage_requests.configure_dependencies("demo", ADMIN)
    ((kind, _, payload),) = launcher.started
    assert (kind, payload["clusterTag"], payload["eksClusterName"]) == (
        OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES,
        "demo",
        "eks-cluster-demo",
    )


def test_hyperpod_is_planned_and_started_with_the_resolved_first_group(stage_requests, registry, launcher, make_record):
    registry.create(make_record("eks", "dependencies"))
    plan = stage_requests.plan_hyperpod("demo", GROUP)
    assert ("AWS::SageMaker::Cluster", "hp-cluster-demo") in {(a.resource, a.name) for a in plan.actions}
    assert launcher.started == []
    stage_requests.create_hyperpod("demo", GROUP, ADMIN)
    ((kind, _, payload),) = launcher.started
    assert (kind, payload["hyperpod"]["instanceGroupName"]) == (
        OperationKind.CREATE_HYPERPOD_CLUSTER,
        "accelerated-worker",
    )


def test_a_second_hyperpod_cluster_is_refused(stage_requests, registry, make_record):
    registry.create(make_record("eks", "dependencies", "hyperpod"))
    with pytest.raises(ClusterExistsError, match="add capacity with an instance group"):
        stage_requests.create_hyperpod("demo", GROUP, ADMIN)


def test_hyperpod_in_an_imported_vpc_without_nat_egress_is_refused(stage_requests, registry, make_record):
    closed = ImportedNetwork(vpcId="vpc-team", vpcCidr="10.60.0.0/16", subnetIds=[], securityGroupId="sg-1")
    registry.create(make_record("eks", "dependencies", imported=True, network=closed))
    with pytest.raises(InvalidRequestError, match="no NAT gateway route"):
        stage_requests.plan_hyperpod("demo", GROUP)


def test_storage_with_fsx_starts_with_the_fsx_csi_driver_feature_enabled(
    stage_requests, registry, launcher, make_record
):
    registry.create(make_record("eks", "dependencies", "hyperpod"))
    stage_requests.configure_storage("demo", ConfigureStorageRequest(fsx=FsxRequest()), ADMIN)
    ((kind, _, payload),) = launcher.started
    assert kind == OperationKind.CONFIGURE_STORAGE
    assert (payload["storage"]["fsx"]["claimName"], payload["features"]["fsxCsiDriver"]["change"]) == (
        "fsx-claim",
        "enable",
    )


def test_storage_lists_the_fsx_stage_only_when_a_file_system_is_asked_for(stage_requests, registry, make_record):
    registry.create(make_record("eks", "dependencies", "hyperpod"))
    plain = stage_requests.configure_storage("demo", ConfigureStorageRequest(), ADMIN)
    assert [stage.name for stage in plain.stages] == ["bucket", "access", "claim"]
    registry.release("demo", plain.operationId, plain.attempt)
    with_fsx = stage_requests.configure_storage("demo", ConfigureStorageRequest(fsx=FsxRequest()), ADMIN)
    assert [stage.name for stage in with_fsx.stages] == ["bucket", "access", "claim", "fsx"]


def test_storage_rules_refuse_before_anything_starts(stage_requests, registry, launcher, make_record):
    registry.create(make_record("eks", "dependencies"))
    with pytest.raises(ClusterNotReadyError, match="omit fsx"):
        stage_requests.configure_storage("demo", ConfigureStorageRequest(fsx=FsxRequest()), ADMIN)
    registry.save(make_record("eks", "dependencies", adopted=["eks", "dependencies"]))
    with pytest.raises(ForeignResourceError):
        stage_requests.plan_storage("demo", ConfigureStorageRequest())
    assert launcher.started == []


def test_a_resumed_stage_is_checked_as_a_new_request_of_its_stage(stage_requests, registry, operations, make_record):
    """Issue 29, finding 2: the cluster is no longer ready for the stage (a delete failed half-way), so the resume is
    refused as a new storage request is."""
    registry.create(make_record("eks", "dependencies"))
    operation = stage_requests.configure_storage("demo", ConfigureStorageRequest(), ADMIN)
    operations.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})
    assert stage_requests.recheck(registry.find("demo"), operation).checks == []
    registry.save(registry.find("demo").model_copy(update={"status": ClusterStatus.FAILED}))
    with pytest.raises(ClusterNotReadyError, match="'dependencies' stage that 'storage' builds on"):
        stage_requests.recheck(registry.find("demo"), operation)


def test_a_resumed_hyperpod_stage_runs_its_preflight_until_the_hyperpod_cluster_exists(
    stage_requests, registry, quotas, hyperpod, make_record
):
    registry.create(make_record("eks", "dependencies"))
    operation = stage_requests.create_hyperpod("demo", GROUP, ADMIN)
    assert [check.status for check in stage_requests.recheck(registry.find("demo"), operation).checks] == ["pass"] * 2
    hyperpod.clusters["hp-cluster-demo"] = object()
    assert stage_requests.recheck(registry.find("demo"), operation).checks == []
