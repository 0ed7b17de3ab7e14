"""The one builder of workflow inputs: common facts from the registry record, the kind's own part, nothing else."""

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from controlplane.core.operations.inputs import workflow_input
from controlplane.models.clusters import ImportedNetwork, NetworkPlan, StageName
from controlplane.models.downloads import DownloadPlan
from controlplane.models.features import Feature, FeatureChange, FeatureChanges
from controlplane.models.governance import TeamNamespacePlan
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.instance_groups import InstanceGroupChange, RollingPolicy, SoftwareUpdatePlan
from controlplane.models.nodes import NodeTarget
from controlplane.models.operations import OperationKind
from controlplane.models.storage import StoragePlan
from controlplane.models.workflow import (
    AddInstanceGroupInput,
    CheckNodeHealthInput,
    ConfigureClusterDependenciesInput,
    ConfigureStorageInput,
    CreateClusterInput,
    CreateEksClusterInput,
    CreateHyperPodClusterInput,
    DeleteEksClusterInput,
    DeleteInstanceGroupInput,
    DeleteNodesInput,
    DownloadToStorageInput,
    ImportClusterInput,
    PrepareTeamNamespaceInput,
    RebootNodesInput,
    RemoveTeamNamespaceInput,
    ReplaceNodesInput,
    RestoreClusterAccessInput,
    UpdateClusterFeaturesInput,
    UpdateClusterSoftwareInput,
    UpdateInstanceGroupInput,
    parse_input,
)

ACCOUNT = "123456789012"
NETWORK = NetworkPlan(vpcCidr="10.90.0.0/16", cidrSource="automatic", subnets=[])
GROUP = HyperPodPlan(
    availabilityZone="us-west-2c",
    instanceType="ml.g6.4xlarge",
    instanceCount=1,
    capacityType="on-demand",
    ebsVolumeSizeGb=500,
    instanceGroupName="workers",
    deepHealthChecks=False,
    dedicatedSubnet=False,
    threadsPerCore=1,
)
STORAGE = StoragePlan(bucketName="data", bucketSource="caller", claimName="s3-claim", namespace="default")
FEATURES = FeatureChanges({Feature.TIERED_STORAGE: FeatureChange(change="enable")})
CHANGE = InstanceGroupChange(instanceGroupName="workers", instanceCount=3)
SOFTWARE = SoftwareUpdatePlan(instanceGroups=["workers"], rollingPolicy=RollingPolicy())
NODES = {
    "nodes": [NodeTarget(nodeId="i-0123456789abcdef0", instanceGroup="workers")],
    "requestedAt": datetime(2026, 1, 1, tzinfo=UTC),
}
DOWNLOAD = DownloadPlan(
    jobName="download-qwen-1",
    namespace="default",
    claimName="s3-claim",
    bucketName="data",
    repoId="Qwen/Qwen2.5-0.5B",
    repoType="model",
    revision="main",
    prefix="models",
    deadlineSeconds=3600,
)
IMPORTED_NETWORK = ImportedNetwork(
    vpcId="vpc-1", vpcCidr="10.60.0.0/16", subnetIds=["subnet-1"], securityGroupId="sg-1", natGatewayId="nat-1"
)

TEAM = TeamNamespacePlan(
    team="ml-a",
    namespace="hyperpod-ns-ml-a",
    claims=["default/s3-claim"],
    jobNamespace="default",
    jobsRole="instantstart-demo-training-jobs",
)
OWN_PARTS = {
    OperationKind.CREATE_EKS_CLUSTER: (CreateEksClusterInput, {"kubernetesVersion": "1.34", "network": NETWORK}),
    OperationKind.CREATE_CLUSTER: (
        CreateClusterInput,
        {"kubernetesVersion": "1.34", "network": NETWORK, "hyperpod": GROUP, "storage": STORAGE, "features": FEATURES},
    ),
    OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES: (ConfigureClusterDependenciesInput, {}),
    OperationKind.CREATE_HYPERPOD_CLUSTER: (CreateHyperPodClusterInput, {"hyperpod": GROUP}),
    OperationKind.CONFIGURE_STORAGE: (ConfigureStorageInput, {"storage": STORAGE, "features": FeatureChanges()}),
    OperationKind.DELETE_EKS_CLUSTER: (DeleteEksClusterInput, {}),
    OperationKind.ADD_INSTANCE_GROUP: (AddInstanceGroupInput, {"hyperpod": GROUP}),
    OperationKind.UPDATE_INSTANCE_GROUP: (UpdateInstanceGroupInput, {"instanceGroup": CHANGE}),
    OperationKind.DELETE_INSTANCE_GROUP: (DeleteInstanceGroupInput, {"instanceGroup": CHANGE}),
    OperationKind.UPDATE_CLUSTER_SOFTWARE: (UpdateClusterSoftwareInput, {"softwareUpdate": SOFTWARE}),
    OperationKind.UPDATE_CLUSTER_FEATURES: (UpdateClusterFeaturesInput, {"features": FEATURES}),
    OperationKind.IMPORT_CLUSTER: (ImportClusterInput, {}),
    OperationKind.RESTORE_CLUSTER_ACCESS: (RestoreClusterAccessInput, {}),
    OperationKind.REBOOT_NODES: (RebootNodesInput, NODES),
    OperationKind.REPLACE_NODES: (ReplaceNodesInput, NODES),
    OperationKind.DELETE_NODES: (DeleteNodesInput, NODES),
    OperationKind.CHECK_NODE_HEALTH: (CheckNodeHealthInput, {**NODES, "checks": ["InstanceStress"]}),
    OperationKind.DOWNLOAD_TO_STORAGE: (DownloadToStorageInput, {"download": DOWNLOAD}),
    OperationKind.PREPARE_TEAM_NAMESPACE: (PrepareTeamNamespaceInput, {"team": TEAM}),
    OperationKind.REMOVE_TEAM_NAMESPACE: (RemoveTeamNamespaceInput, {"team": TEAM}),
}


def test_every_workflow_kind_has_an_input_model():
    assert set(OWN_PARTS) == set(OperationKind)


@pytest.mark.parametrize("kind", list(OperationKind))
def test_each_kind_is_built_as_its_own_model_with_the_records_facts(kind, make_record):
    model, own = OWN_PARTS[kind]
    built = workflow_input(kind, "op-1", make_record(StageName.EKS.value), ACCOUNT, **own)
    assert type(built) is model
    assert (built.kind, built.operationId, built.clusterTag, built.region) == (kind, "op-1", "demo", "us-west-2")
    assert (built.accountId, built.eksClusterName, built.hyperPodClusterName) == (
        ACCOUNT,
        "eks-cluster-demo",
        "hp-cluster-demo",
    )
    assert (built.imported, built.importedNetwork) == (False, None)
    for field, value in own.items():
        assert getattr(built, field) == value


@pytest.mark.parametrize("kind", list(OperationKind))
def test_the_stored_input_parses_back_to_the_same_model(kind, make_record):
    _, own = OWN_PARTS[kind]
    built = workflow_input(kind, "op-1", make_record(), ACCOUNT, **own)
    state = built.model_dump(mode="json", exclude_none=True)
    assert parse_input(state) == built
    # The ASL adds the poll state and a caught error; both parse.
    assert parse_input({**state, "poll": None, "error": {"Error": "X"}}).error == {"Error": "X"}


@pytest.mark.parametrize("kind", [kind for kind, (_, own) in OWN_PARTS.items() if own])
def test_an_input_without_its_kinds_part_is_refused(kind, make_record):
    with pytest.raises(ValidationError):
        workflow_input(kind, "op-1", make_record(), ACCOUNT)


def test_a_part_the_kind_does_not_have_is_refused(make_record):
    with pytest.raises(ValidationError, match="hyperpod"):
        workflow_input(OperationKind.DELETE_EKS_CLUSTER, "op-1", make_record(), ACCOUNT, hyperpod=GROUP)


def test_an_imported_cluster_passes_its_own_hyperpod_name_and_network_to_every_kind(make_record):
    """Regression: the features workflow used to get neither, and failed on an imported HyperPod cluster."""
    record = make_record(
        "eks", "dependencies", "hyperpod", imported=True, hyperPodClusterName="team-hp", network=IMPORTED_NETWORK
    )
    for kind, (_, own) in OWN_PARTS.items():
        built = workflow_input(kind, "op-1", record, ACCOUNT, **own)
        assert (built.hyperPodClusterName, built.imported, built.importedNetwork) == (
            "team-hp",
            True,
            IMPORTED_NETWORK,
        ), kind


def test_a_group_workflow_names_the_group_it_acts_on(make_record):
    added = workflow_input(OperationKind.ADD_INSTANCE_GROUP, "op-1", make_record(), ACCOUNT, hyperpod=GROUP)
    deleted = workflow_input(OperationKind.DELETE_INSTANCE_GROUP, "op-1", make_record(), ACCOUNT, instanceGroup=CHANGE)
    assert added.instance_group_name == deleted.instance_group_name == "workers"


def test_a_state_of_an_unknown_kind_is_not_a_workflow_input():
    with pytest.raises(ValidationError):
        parse_input({"operationId": "op-1", "kind": "no-such-workflow"})


def test_poll_attempts_count_from_one(make_record):
    built = workflow_input(OperationKind.IMPORT_CLUSTER, "op-1", make_record(), ACCOUNT)
    assert built.attempt() == 1
    polled = parse_input({**built.model_dump(mode="json"), "poll": {"done": False, "attempts": 4, "waitSeconds": 5}})
    assert polled.attempt() == 5
