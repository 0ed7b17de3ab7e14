"""The registry follows the workflows: finished stages, finished operations, and the lock they held."""

import pytest

from controlplane.core.auth import Actor, Role
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.ports.eks import AddonIssue
from controlplane.core.ports.hyperpod import HyperPodCluster
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.core.registry import ClusterService
from controlplane.core.storage.plan import storage_features, storage_plan
from controlplane.models.clusters import ClusterStatus, ClusterView, LastOperation, NetworkPlan, StageName
from controlplane.models.drift import DriftReport
from controlplane.models.errors import ClusterNotFoundError, ClusterNotReadyError
from controlplane.models.events import EventRecord, RemediationPolicyView
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.operations import Operation, OperationKind, OperationStatus, Stage, StageStatus
from controlplane.models.status import GPU_RESOURCE, GROUP_LABEL
from controlplane.models.storage import ConfigureStorageRequest
from tests.fakes.account import ACCOUNT_ID
from tests.fakes.events import InMemoryEventStore
from tests.fakes.persistence import InMemoryDriftReportStore

ADMIN = Actor("alice", Role.ADMIN)
REPLICAS = AddonIssue("InsufficientNumberOfReplicas", "The add-on is unhealthy because it doesn't have the desired ...")
CONFLICT = AddonIssue("ConfigurationConflict", "Conflicts found when trying to apply.")
STORAGE = storage_plan("demo", "us-west-2", ACCOUNT_ID, ConfigureStorageRequest(claimName="data"))


def finish(operations, registry, kind, status, **own):
    operation = operations.start(registry.find("demo"), ADMIN, kind, **own)
    if status == OperationStatus.SUCCEEDED:
        return operations.succeed(operation.operationId)
    return operations.fail_execution(operation.operationId, "arn:exec", {"Error": "X", "Cause": "boom"})


def test_an_unknown_cluster_is_not_found(clusters):
    with pytest.raises(ClusterNotFoundError, match="GET /clusters lists"):
        clusters.get("nope")


def test_a_stage_needs_the_one_it_builds_on_and_an_active_cluster(clusters, registry, make_record):
    registry.create(make_record("eks"))
    assert clusters.ready_for("demo", StageName.DEPENDENCIES, needs=StageName.EKS).clusterTag == "demo"
    with pytest.raises(ClusterNotReadyError, match="'dependencies' stage that 'hyperpod' builds on"):
        clusters.ready_for("demo", StageName.HYPERPOD, needs=StageName.DEPENDENCIES)
    registry.save(make_record("eks", status=ClusterStatus.DELETING))
    with pytest.raises(ClusterNotReadyError):
        clusters.ready_for("demo", StageName.DEPENDENCIES, needs=StageName.EKS)


def test_a_succeeded_stage_operation_marks_its_stage_done_and_releases_the_lock(
    clusters, operations, registry, make_record
):
    registry.create(make_record("eks"))
    operation = finish(operations, registry, OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES, OperationStatus.SUCCEEDED)
    clusters.record_outcome(operation)
    record = registry.find("demo")
    assert (record.stagesDone, record.lastOperationId, record.activeOperationId) == (
        ["eks", "dependencies"],
        operation.operationId,
        None,
    )


def test_a_failed_stage_one_fails_the_cluster_unless_its_eks_stage_was_recorded(
    clusters, operations, registry, make_record
):
    network = NetworkPlan(vpcCidr="10.90.0.0/16", cidrSource="automatic", subnets=[])
    registry.create(make_record(status=ClusterStatus.CREATING))
    operation = finish(
        operations,
        registry,
        OperationKind.CREATE_EKS_CLUSTER,
        OperationStatus.FAILED,
        kubernetesVersion="1.34",
        network=network,
    )
    clusters.record_outcome(operation)
    assert registry.find("demo").status == ClusterStatus.FAILED
    registry.save(make_record("eks", status=ClusterStatus.CREATING))
    clusters.record_outcome(operation)
    assert registry.find("demo").status == ClusterStatus.ACTIVE


def test_a_create_that_failed_halfway_leaves_an_active_cluster_whose_last_operation_names_the_failed_stage(
    clusters, registry, make_record, clock
):
    record = make_record("eks", "dependencies", status=ClusterStatus.CREATING)
    registry.create(record)
    stages = [
        Stage(name=name, status=status)
        for name, status in zip(
            ("eks", "dependencies", "hyperpod", "storage"),
            (StageStatus.SUCCEEDED, StageStatus.SUCCEEDED, StageStatus.FAILED, StageStatus.PENDING),
            strict=True,
        )
    ]
    failed = Operation(
        operationId="op-create",
        kind=OperationKind.CREATE_CLUSTER,
        target="demo",
        incarnation=record.incarnation,
        status=OperationStatus.FAILED,
        stages=stages,
        actor="alice",
        createdAt=clock.now(),
        updatedAt=clock.now(),
    )
    clusters.record_outcome(failed)
    listed = ClusterView.of(clusters.page().items[0])
    assert listed.status == ClusterStatus.ACTIVE
    assert listed.lastOperation == LastOperation(
        operationId="op-create",
        kind=OperationKind.CREATE_CLUSTER,
        status=OperationStatus.FAILED,
        failedStage="hyperpod",
        failedStageNumber=3,
        endedAt=clock.now(),
    )
    succeeded = [stage.model_copy(update={"status": StageStatus.SUCCEEDED}) for stage in stages]
    clusters.record_outcome(failed.model_copy(update={"status": OperationStatus.SUCCEEDED, "stages": succeeded}))
    last = clusters.get("demo").lastOperation
    assert last is not None
    assert (last.status, last.failedStage, last.failedStageNumber) == (OperationStatus.SUCCEEDED, None, None)


def test_an_import_activates_or_fails_the_cluster(clusters, operations, registry, make_record):
    registry.create(make_record(status=ClusterStatus.IMPORTING, imported=True))
    operation = finish(operations, registry, OperationKind.IMPORT_CLUSTER, OperationStatus.FAILED)
    clusters.record_outcome(operation)
    assert registry.find("demo").status == ClusterStatus.FAILED
    clusters.record_outcome(operation.model_copy(update={"status": OperationStatus.SUCCEEDED}))
    assert registry.find("demo").status == ClusterStatus.ACTIVE


def test_a_finished_delete_removes_the_record_and_a_failed_one_keeps_it_failed(
    clusters, operations, registry, make_record
):
    registry.create(make_record("eks"))
    failed = finish(operations, registry, OperationKind.DELETE_EKS_CLUSTER, OperationStatus.FAILED)
    clusters.record_outcome(failed)
    assert registry.find("demo").status == ClusterStatus.FAILED
    clusters.record_outcome(failed.model_copy(update={"status": OperationStatus.SUCCEEDED}))
    assert registry.find("demo") is None
    clusters.record_outcome(failed)


def test_a_finished_delete_forgets_the_drift_report_and_remediation_policy_kept_beside_the_cluster(
    operations, registry, eks, hyperpod, kubernetes, clock, make_record
):
    """Found by the soak: both outlived the cluster, so one created again under its tag started with the old
    cluster's findings and its remediation policy (a policy that reboots or replaces nodes, set for another cluster).
    The events received stay, as history."""
    reports, events = InMemoryDriftReportStore(), InMemoryEventStore()
    clusters = ClusterService(
        registry, lambda region: eks, lambda region: hyperpod, kubernetes, clock, kept_beside=(reports, events)
    )
    registry.create(make_record("eks"))
    reports.put(DriftReport(clusterTag="demo", checkedAt=clock.now(), inSync=True))
    events.save_policy(RemediationPolicyView(clusterTag="demo", action="replace"))
    events.add(EventRecord(clusterTag="demo", eventId="e-1", time=clock.now(), kind="NodeHealth"))
    failed = finish(operations, registry, OperationKind.DELETE_EKS_CLUSTER, OperationStatus.FAILED)
    clusters.record_outcome(failed)
    assert reports.find("demo") is not None and events.policy("demo") is not None

    clusters.record_outcome(failed.model_copy(update={"status": OperationStatus.SUCCEEDED}))

    assert reports.find("demo") is None
    assert events.policy("demo") is None
    assert [record.eventId for record in events.page("demo", 10, None).items] == ["e-1"]


def test_finished_storage_records_its_bucket_and_claim(clusters, operations, registry, make_record):
    registry.create(make_record("eks", "dependencies"))
    operation = finish(
        operations,
        registry,
        OperationKind.CONFIGURE_STORAGE,
        OperationStatus.SUCCEEDED,
        storage=STORAGE,
        features=storage_features(STORAGE),
    )
    clusters.record_outcome(operation)
    record = registry.find("demo")
    assert (record.stagesDone[-1], record.storageBucket, record.storageClaim) == (
        "storage",
        STORAGE.bucketName,
        "default/data",
    )


def test_a_finished_hyperpod_stage_records_the_hyperpod_cluster_name(clusters, operations, registry, make_record):
    registry.create(make_record("eks", "dependencies"))
    group = HyperPodPlan(
        availabilityZone="us-west-2c",
        instanceType="ml.g6.4xlarge",
        instanceCount=1,
        capacityType="on-demand",
        ebsVolumeSizeGb=500,
        instanceGroupName="workers",
        deepHealthChecks=True,
        dedicatedSubnet=False,
        threadsPerCore=1,
    )
    failed = finish(operations, registry, OperationKind.CREATE_HYPERPOD_CLUSTER, OperationStatus.FAILED, hyperpod=group)
    clusters.record_outcome(failed)
    assert registry.find("demo").hyperPodClusterName is None
    clusters.record_outcome(failed.model_copy(update={"status": OperationStatus.SUCCEEDED}))
    assert registry.find("demo").hyperPodClusterName == "hp-cluster-demo"


def test_each_pipeline_stage_is_recorded_as_it_finishes(clusters, registry, make_record):
    registry.create(make_record(status=ClusterStatus.CREATING))
    group = HyperPodPlan(
        availabilityZone="us-west-2c",
        instanceType="ml.g6.4xlarge",
        instanceCount=1,
        capacityType="on-demand",
        ebsVolumeSizeGb=500,
        instanceGroupName="workers",
        deepHealthChecks=True,
        dedicatedSubnet=False,
        threadsPerCore=1,
    )
    ctx = workflow_input(
        OperationKind.CREATE_CLUSTER,
        "op-1",
        registry.find("demo"),
        ACCOUNT_ID,
        kubernetesVersion="1.34",
        network=NetworkPlan(vpcCidr="10.90.0.0/16", cidrSource="automatic", subnets=[]),
        hyperpod=group,
        storage=STORAGE,
        features=storage_features(STORAGE),
    )
    clusters.record_stage(ctx, StageName.EKS)
    assert (registry.find("demo").status, registry.find("demo").stagesDone) == (ClusterStatus.ACTIVE, ["eks"])
    clusters.record_stage(ctx, StageName.EKS)
    assert registry.find("demo").hyperPodClusterName is None
    clusters.record_stage(ctx, StageName.HYPERPOD)
    clusters.record_stage(ctx, StageName.STORAGE)
    record = registry.find("demo")
    assert (record.stagesDone, record.storageClaim) == (["eks", "hyperpod", "storage"], "default/data")
    assert record.hyperPodClusterName == "hp-cluster-demo"


def test_status_is_ready_only_when_every_stage_and_node_is(clusters, registry, eks, hyperpod, kubernetes, make_record):
    registry.create(make_record("eks", "dependencies", "hyperpod"))
    eks.add_cluster("eks-cluster-demo")
    hyperpod.clusters["hp-cluster-demo"] = HyperPodCluster(
        name="hp-cluster-demo", arn="arn:hp", status="Updating", failure_message=None, groups=()
    )
    node = KubernetesNode(
        name="hyperpod-i-1",
        ready=True,
        schedulable=False,
        labels={GROUP_LABEL: "workers"},
        capacity={GPU_RESOURCE: "8"},
        allocatable={GPU_RESOURCE: "8"},
    )
    kubernetes.api("eks-cluster-demo").nodes.append(node)
    status = clusters.status("demo")
    assert not status.ready
    assert status.missing == [
        "stage 'storage'",
        "HyperPod cluster InService (now Updating)",
        "nodes Ready and schedulable: hyperpod-i-1",
    ]
    assert (status.gpusTotal, status.gpusAllocatable, status.nodes[0].instanceGroup) == (8, 0, "workers")


def test_status_counts_every_node_and_lists_at_most_twenty_not_ready_first(
    clusters, registry, eks, hyperpod, kubernetes, make_record
):
    registry.create(make_record("eks", "dependencies", "hyperpod", "storage"))
    eks.add_cluster("eks-cluster-demo")
    nodes = kubernetes.api("eks-cluster-demo").nodes
    for index in range(30):
        nodes.append(KubernetesNode(f"hyperpod-i-{index:02d}", index < 5, True, {}, {GPU_RESOURCE: "1"}, {}))

    status = clusters.status("demo")

    assert (status.nodesTotal, status.nodesReady, status.nodesNotReady, status.gpusTotal) == (30, 5, 25, 30)
    assert len(status.nodes) == 20
    assert all(not node.ready for node in status.nodes)
    assert status.missing[-1].endswith("hyperpod-i-24 and 5 more")


def test_status_names_the_dependency_addons_that_are_not_active_and_those_waiting_for_nodes(
    registry, eks, hyperpod, kubernetes, clock, make_record
):
    clusters = ClusterService(
        registry,
        lambda region: eks,
        lambda region: hyperpod,
        kubernetes,
        clock,
        stage_addons=("eks-pod-identity-agent", "cert-manager", "metrics-server", "aws-mountpoint-s3-csi-driver"),
    )
    registry.create(make_record("eks", "dependencies"))
    eks.add_cluster("eks-cluster-demo")
    eks.add_addon("eks-cluster-demo", "eks-pod-identity-agent")
    for addon in ("cert-manager", "metrics-server"):
        eks.add_addon("eks-cluster-demo", addon, "DEGRADED")
        eks.set_addon_status("eks-cluster-demo", addon, "DEGRADED", REPLICAS)
    eks.set_addon_status("eks-cluster-demo", "metrics-server", "DEGRADED", CONFLICT)

    missing = clusters.status("demo").missing

    assert missing[2:] == [
        "add-on cert-manager ACTIVE (now installed, waiting for a schedulable node to run its pods)",
        f"add-on metrics-server ACTIVE (now DEGRADED: {CONFLICT})",
        "add-on aws-mountpoint-s3-csi-driver (not installed: run the dependencies stage again)",
    ]
    kubernetes.api("eks-cluster-demo").nodes.append(KubernetesNode("hyperpod-i-1", True, True, {}, {}, {}))
    assert "add-on cert-manager ACTIVE (now DEGRADED: " + str(REPLICAS) + ")" in clusters.status("demo").missing
